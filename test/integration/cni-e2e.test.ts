/**
 * vppnet-cni as it is shipped (the single executable of `npm run build:cni-sea`) driven by a real
 * libcni client: containerd's `ctr run --cni`, with a busybox container in its own netns. The agent
 * side runs in this process: the VPP simulator, the service bridge reconciled into it, and the
 * agent's services (openServices: attachment manager + local API) on a temp Unix socket.
 *
 * ctr reads CNI configs from /etc/cni/net.d and plugins from /opt/cni/bin (Debian's adds
 * /usr/lib/cni to CNI_PATH) and caches results in /var/lib/cni, with no option to change them. So
 * ctr runs in a private mount namespace where temp dirs are bind-mounted over those three paths
 * (and /dev/null over the node binary: the plugin must not need it): the host's own CNI setup is
 * neither read nor touched. Missing mount points are created first and removed afterwards.
 *
 * containerd runs as a child process with its own root, state dir and socket; ctr keeps its FIFOs
 * and runc state in the temp dir and creates no cgroup. What stays outside: containerd's shim
 * sockets in /run/containerd/s (removed when the shim exits).
 *
 * The executable is built here (testing/cni-sea.ts), once for this file; cni-sea.test.ts checks it
 * on its own.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, rmdir, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { linuxHostLinks } from '../../src/agent/host-links.js';
import { hostLinkOwner } from '../../src/netns/link-owner.js';
import { DEFAULT_POD_NETNS_DIRS, PROC_NETNS_DIRS } from '../../src/netns/pod-netns-path.js';
import { reconcile } from '../../src/agent/reconciler.js';
import { memoryStore } from '../../src/hypervisor/reconcile.js';
import { installCni } from '../../src/cli/install-cni.js';
import { validateConfig } from '../../src/config/validate.js';
import { hostVethName } from '../../src/netns/index.js';
import { ATTACHMENTS_DIR } from '../../src/attachments/attachment-store.js';
import { openServices, type OpenedServices } from '../../src/attachments/open-services.js';
import { VppClient } from '../../src/vpp/client/vpp-client.js';
import { msg } from '../../src/vpp/messages/index.js';
import { VppSimulator } from '../../src/vpp/sim/index.js';
import {
  run,
  CNI_PLUGIN_DIR,
  BUSYBOX,
  within,
  untilStdout,
  CTR_SKIP,
  CTR_CNI_CONF_DIR,
  CTR_CNI_BIN_DIR,
  CTR_CNI_CACHE_DIR,
  NETWORK,
  CTR_NAMESPACE,
  POD_IFNAME,
  singleExecutable,
  copyWithLibraries,
} from './testing/cni-sea.js';

const builtSea = singleExecutable();

void describe(
  'vppnet-cni through containerd (ctr run --cni) into the service bridge',
  { skip: CTR_SKIP },
  () => {
    let dir = '';
    let sim: VppSimulator | undefined;
    /** The agent's VPP connection. */
    let agentClient: VppClient | undefined;
    /** Another VPP client, for looking at what the agent made. */
    let client: VppClient | undefined;
    let services: OpenedServices | undefined;
    let containerd: ChildProcess | undefined;
    let containerdLog = '';
    const createdMountPoints: string[] = [];
    const paths = {
      containerdSock: '',
      agentSock: '',
      stateDir: '',
      confDir: '',
      binDir: '',
      cacheDir: '',
      rootfs: '',
    };

    const ctr = (...args: string[]): string[] => [
      '--address',
      paths.containerdSock,
      '--namespace',
      CTR_NAMESPACE,
      ...args,
    ];

    async function ensureMountPoint(path: string): Promise<void> {
      const missing: string[] = [];
      for (let p = path; !existsSync(p); p = dirname(p)) missing.unshift(p);
      for (const p of missing) {
        await mkdir(p);
        createdMountPoints.unshift(p); // removed deepest first
      }
    }

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'vppnet-cni-e2e-'));
      for (const [key, sub] of [
        ['agentSock', 'run/agent.sock'],
        ['stateDir', 'state'],
        ['confDir', 'cni/net.d'],
        ['binDir', 'cni/bin'],
        ['cacheDir', 'cni/cache'],
        ['rootfs', 'rootfs'],
      ] as const) {
        paths[key] = join(dir, sub);
      }
      paths.containerdSock = join(dir, 'containerd/containerd.sock');
      await Promise.all(
        [paths.confDir, paths.binDir, paths.cacheDir].map((d) => mkdir(d, { recursive: true })),
      );

      // The plugin, installed as the init container does; static IPAM beside it.
      const sea = (await builtSea()).path;
      await installCni({ source: sea, dest: paths.binDir });
      await symlink(join(CNI_PLUGIN_DIR, 'static'), join(paths.binDir, 'static'));
      await writeFile(
        join(paths.confDir, '10-vppnet.conflist'),
        JSON.stringify({
          cniVersion: '1.0.0',
          name: NETWORK,
          plugins: [
            {
              type: 'vppnet-cni',
              agentSocket: paths.agentSock,
              mode: 'veth',
              ipam: {
                type: 'static',
                addresses: [{ address: '169.254.169.103/24', gateway: '169.254.169.1' }],
                routes: [{ dst: '169.252.252.0/24', gw: '169.254.169.1' }],
              },
            },
          ],
        }),
      );

      // A busybox rootfs.
      await copyWithLibraries(BUSYBOX!, paths.rootfs, '/bin/busybox');
      for (const applet of ['sh', 'ip', 'echo', 'cat'])
        await symlink('busybox', join(paths.rootfs, 'bin', applet));
      for (const d of ['proc', 'sys', 'dev', 'tmp', 'etc'])
        await mkdir(join(paths.rootfs, d), { recursive: true });

      // VPP and the agent's services, with the service bridge reconciled into VPP.
      sim = await VppSimulator.start({ socketPath: join(dir, 'vpp-api.sock') });
      client = new VppClient({
        socketPath: sim.socketPath,
        clientName: 'vppnet-cni-e2e',
        healthCheckIntervalMs: 0,
      });
      await client.connect();
      agentClient = new VppClient({
        socketPath: sim.socketPath,
        clientName: 'vppnet-agent',
        healthCheckIntervalMs: 0,
      });
      await agentClient.connect();
      const lo = await client.call(msg.create_loopback_instance, {}); // the "underlay NIC"
      const [underlay] = await client.dump(msg.sw_interface_dump, {
        sw_if_index: lo.sw_if_index,
        name_filter_valid: false,
      });
      const config = validateConfig({
        node: {
          name: 'hv1',
          underlay: {
            interface: underlay!.interface_name,
            address: '2001:db8::1/64',
            gateway: '2001:db8::2',
          },
          vhostUser: { directory: dir },
          srv6: { locator: 'fc00:1::/48' },
        },
        vpcs: [{ name: 'vpc-a', id: 10, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' }],
        ports: [
          {
            name: 'vm1',
            vpc: 'vpc-a',
            mac: '52:54:00:00:01:05',
            ip: '10.0.0.5',
            attach: { type: 'vhost-user', socket: join(dir, 'vm1.sock') },
          },
        ],
        remoteRoutes: [],
        services: { dhcpServer: '169.254.169.103', dnsAddress: '169.254.169.53' },
      });
      services = await openServices({
        client: agentClient,
        host: linuxHostLinks(hostLinkOwner(sim.socketPath)),
        hostLinkOwner: hostLinkOwner(sim.socketPath),
        stateDir: paths.stateDir,
        services: () => config.services,
        // ctr run --cni names the container's namespace /proc/<pid>/ns/net.
        podNetnsDirs: [...DEFAULT_POD_NETNS_DIRS, PROC_NETNS_DIRS],
      });
      const outcome = await reconcile(config, {
        client: agentClient,
        host: linuxHostLinks(hostLinkOwner(sim.socketPath)),
        globals: memoryStore(),
        services: services.runtime,
      });
      assert.deepEqual(
        outcome.result?.failed.map((f) => f.error.message),
        [],
      );
      await services.localApi.listen(paths.agentSock);

      // containerd, on its own.
      const containerdDir = dirname(paths.containerdSock);
      await mkdir(containerdDir, { recursive: true });
      await writeFile(
        join(containerdDir, 'config.toml'),
        [
          'version = 2',
          `root = "${join(containerdDir, 'root')}"`,
          `state = "${join(containerdDir, 'state')}"`,
          'disabled_plugins = ["io.containerd.grpc.v1.cri"]',
          '[grpc]',
          `  address = "${paths.containerdSock}"`,
          '[ttrpc]',
          `  address = "${paths.containerdSock}.ttrpc"`,
          '',
        ].join('\n'),
      );
      containerd = spawn('containerd', ['--config', join(containerdDir, 'config.toml')], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      containerd.stderr?.on(
        'data',
        (c: Buffer) => (containerdLog = (containerdLog + c.toString()).slice(-20_000)),
      );
      const deadline = Date.now() + 15_000;
      for (;;) {
        const version = await run('ctr', ctr('version')).catch((err: Error) => err);
        if (!(version instanceof Error)) break;
        if (Date.now() > deadline || containerd.exitCode !== null) {
          throw new Error(`containerd did not come up: ${version.message}\n${containerdLog}`);
        }
        await sleep(100);
      }

      for (const p of [CTR_CNI_CONF_DIR, CTR_CNI_BIN_DIR, CTR_CNI_CACHE_DIR]) await ensureMountPoint(p);
    });

    after(async () => {
      if (containerd && containerd.exitCode === null) {
        await removeCtrLeftovers();
        const exited = new Promise((resolve) => containerd?.once('exit', resolve));
        containerd.kill('SIGTERM');
        const killer = setTimeout(() => containerd?.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(killer);
      }
      for (const p of createdMountPoints) await rmdir(p).catch(() => undefined);
      await services?.localApi.close();
      for (const r of services?.manager.list() ?? [])
        await services?.manager.detach(r).catch(() => undefined);
      await agentClient?.close();
      await client?.close();
      await sim?.close();
      if (dir !== '') await rm(dir, { recursive: true, force: true });
    });

    /** Tasks and containers left by a failed test (or by ctr): their shims exit with them. */
    async function removeCtrLeftovers(): Promise<void> {
      const tasks = await run('ctr', ctr('task', 'ls', '-q')).catch(() => ({ stdout: '' }));
      for (const id of tasks.stdout.split('\n').filter((t) => t !== '')) {
        await run('ctr', ctr('task', 'kill', '-s', 'SIGKILL', id)).catch(() => undefined);
        await run('ctr', ctr('task', 'rm', '-f', id)).catch(() => undefined);
      }
      const containers = await run('ctr', ctr('container', 'ls', '-q')).catch(() => ({ stdout: '' }));
      for (const id of containers.stdout.split('\n').filter((c) => c !== '')) {
        await run('ctr', ctr('container', 'rm', id)).catch(() => undefined);
      }
    }

    /** What VPP, the host and the agent's state dir hold of one attachment. */
    async function traces(id: string): Promise<string[]> {
      const out: string[] = [];
      const ifs = await client!.dump(msg.sw_interface_dump, {
        sw_if_index: 0xffffffff,
        name_filter_valid: false,
      });
      const port = ifs.find((i) => i.tag === `vppnet:pod:${id}`);
      if (port) out.push(`VPP interface ${port.interface_name}`);
      if ((await client!.dump(msg.af_packet_dump, {})).some((a) => a.host_if_name === id))
        out.push(`af_packet on ${id}`);
      const bds = await client!.dump(msg.bridge_domain_dump, { bd_id: 0xffffffff, sw_if_index: 0xffffffff });
      const bridge = bds.find(
        (bd) => port && bd.sw_if_details.some((m) => m.sw_if_index === port.sw_if_index),
      );
      if (bridge) out.push(`member of bridge ${bridge.bd_tag}`);
      if (existsSync(`/sys/class/net/${id}`)) out.push(`host link ${id}`);
      const records = await readdir(join(paths.stateDir, ATTACHMENTS_DIR)).catch(() => [] as string[]);
      if (records.includes(`${id}.json`)) out.push(`record ${id}`);
      return out;
    }

    interface CtrRun {
      readonly child: ChildProcessWithoutNullStreams;
      readonly output: { stdout: string; stderr: string };
      readonly exited: Promise<number | null>;
      /** ctr's output, for assertion messages. */
      readonly diag: () => string;
    }

    /**
     * `ctr run --rm --cni` of the busybox rootfs, as container `name`, in a private mount namespace
     * whose CNI dirs are ours and where node cannot run.
     */
    function ctrRun(name: string, containerScript: string, pidFile: string): CtrRun {
      const node = realpathSync(process.execPath);
      const mounts = [
        [paths.confDir, CTR_CNI_CONF_DIR],
        [paths.binDir, CTR_CNI_BIN_DIR],
        [paths.cacheDir, CTR_CNI_CACHE_DIR],
        ['/dev/null', node],
      ];
      const script = [
        'set -e',
        ...mounts.map(([from, to]) => `mount --bind '${from}' '${to}'`),
        // Prove the mounts took: node is not runnable in here.
        `! '${node}' --version >/dev/null 2>&1`,
        'exec ctr "$@"',
      ].join('\n');
      const args = ctr(
        'run',
        '--rm',
        '--cni',
        ...['--cgroup', '', '--fifo-dir', join(dir, 'fifo'), '--runc-root', join(dir, 'runc')],
        ...['--pid-file', pidFile, '--rootfs', paths.rootfs, name],
        ...['/bin/sh', '-c', containerScript],
      );
      const child = spawn(
        'unshare',
        ['--mount', '--propagation', 'private', 'sh', '-c', script, 'sh', ...args],
        {
          stdio: ['pipe', 'pipe', 'pipe'],
        },
      );
      const output = { stdout: '', stderr: '' };
      child.stdout.on('data', (c: Buffer) => (output.stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (output.stderr += c.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      const diag = (): string => `\n--- ctr stdout:\n${output.stdout}\n--- ctr stderr:\n${output.stderr}`;
      return { child, output, exited, diag };
    }

    void it('ADD when the container starts, DEL when it exits, nothing left behind', async (t) => {
      const name = `pod-${process.pid}`;
      const containerId = `${CTR_NAMESPACE}-${name}`; // what ctr passes as CNI_CONTAINERID
      const id = hostVethName(containerId, POD_IFNAME);
      const pidFile = join(dir, `${name}.pid`);
      const containerScript = [
        'echo "== addr"; ip -4 addr show dev eth0',
        'echo "== route"; ip -4 route',
        'echo READY',
        'read line',
        'echo "BYE $line"',
      ].join('; ');
      const started = Date.now();
      const { child, output, exited, diag } = ctrRun(name, containerScript, pidFile);
      try {
        const ready = await within(60_000, untilStdout(child, output, 'READY'));
        if (ready !== true) assert.fail(`the container did not start${diag()}`);
        t.diagnostic(`container up with its interface ${Date.now() - started} ms after ctr run`);

        // Inside the container: what busybox sees.
        const { stdout } = output;
        const addr = stdout.slice(stdout.indexOf('== addr'), stdout.indexOf('== route'));
        const route = stdout.slice(stdout.indexOf('== route'), stdout.indexOf('READY'));
        assert.match(addr, /inet 169\.254\.169\.103\/24 .*eth0/, diag());
        assert.match(route, /169\.252\.252\.0\/24 via 169\.254\.169\.1 dev eth0/, diag());

        // The same netns seen from the host, and what the agent recorded for it.
        const pid = (await readFile(pidFile, 'utf8')).trim();
        const netns = `/proc/${pid}/ns/net`;
        const [record] = services!.manager.list();
        assert.deepEqual(
          [record?.containerId, record?.ifname, record?.netns, record?.network, record?.mode],
          [containerId, POD_IFNAME, netns, NETWORK, 'veth'],
        );
        const podAddrs = JSON.parse(
          (await run('nsenter', [`--net=${netns}`, 'ip', '-j', 'addr', 'show', 'dev', POD_IFNAME])).stdout,
        ) as {
          addr_info: { family: string; local: string; prefixlen: number }[];
          address: string;
        }[];
        assert.deepEqual(
          podAddrs[0]?.addr_info.filter((a) => a.family === 'inet').map((a) => `${a.local}/${a.prefixlen}`),
          ['169.254.169.103/24'],
        );
        assert.equal(podAddrs[0]?.address, record?.podMac);
        const podRoutes = JSON.parse(
          (await run('nsenter', [`--net=${netns}`, 'ip', '-j', '-4', 'route', 'show'])).stdout,
        ) as {
          dst: string;
          gateway?: string;
          dev: string;
        }[];
        assert.ok(
          podRoutes.some(
            (r) => r.dst === '169.252.252.0/24' && r.gateway === '169.254.169.1' && r.dev === POD_IFNAME,
          ),
          JSON.stringify(podRoutes),
        );

        // VPP: af_packet on the host end, a bridge member, up, its own input ACL and pod-out on output.
        assert.deepEqual(await traces(id), [
          `VPP interface host-${id}`,
          `af_packet on ${id}`,
          'member of bridge vppnet:services',
          `host link ${id}`,
          `record ${id}`,
        ]);
        const ifs = await client!.dump(msg.sw_interface_dump, {
          sw_if_index: 0xffffffff,
          name_filter_valid: false,
        });
        const port = ifs.find((i) => i.tag === `vppnet:pod:${id}`)!;
        assert.equal(port.flags & 1, 1, 'admin up');
        const acls = await client!.dump(msg.acl_dump, { acl_index: 0xffffffff });
        const aclIndex = (tag: string): number | undefined => acls.find((a) => a.tag === tag)?.acl_index;
        const [binding] = await client!.dump(msg.acl_interface_list_dump, { sw_if_index: port.sw_if_index });
        assert.deepEqual(
          [binding?.n_input, ...(binding?.acls ?? [])],
          [1, aclIndex(`vppnet:pod-in:${id}`), aclIndex('vppnet:pod-out')],
        );
        // libcni cached the result (it hands it to DEL as prevResult).
        assert.deepEqual((await readdir(join(paths.cacheDir, 'results'))).length, 1);

        // The container exits; ctr --rm runs CNI DEL (with no netns: the namespace died with it).
        child.stdin.end('done\n');
        const code = await within(60_000, exited);
        assert.equal(code, 0, diag());
        assert.match(output.stdout, /BYE done/);
        t.diagnostic(`ctr run --rm finished ${Date.now() - started} ms after it started`);

        assert.deepEqual(await traces(id), [], 'VPP objects, host veth and attachment record are gone');
        assert.deepEqual(services!.manager.list(), []);
        assert.deepEqual(await readdir(join(paths.cacheDir, 'results')), []);
        assert.equal((await run('ctr', ctr('container', 'ls', '-q'))).stdout.trim(), '');
        assert.equal(existsSync(netns), false);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    });

    // Last: it takes VPP away from the agent for good.
    void it("a failed ADD (the agent has no VPP) is the runtime's error and leaves nothing", async () => {
      await agentClient!.close();
      const name = `pod-novpp-${process.pid}`;
      const id = hostVethName(`${CTR_NAMESPACE}-${name}`, POD_IFNAME);
      const { exited, output, diag } = ctrRun(name, 'echo STARTED', join(dir, `${name}.pid`));
      const code = await within(60_000, exited);
      assert.notEqual(code, 0, diag());
      assert.doesNotMatch(output.stdout, /STARTED/, 'the container never ran');
      // libcni reports the plugin's CNI error (code 11, try again later) with its message.
      assert.match(output.stderr, /vppnet-cni.*VPP is not connected/, diag());
      assert.deepEqual(await traces(id), []);
      assert.deepEqual(services!.manager.list(), []);
      assert.deepEqual(await readdir(join(paths.cacheDir, 'results')), []);
      // ctr 1.6 itself leaves the container (and its created task) after a failed network setup.
      await removeCtrLeftovers();
    });
  },
);
