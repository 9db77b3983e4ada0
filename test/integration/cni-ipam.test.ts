/**
 * vppnet-cni end to end without VPP: the real reference IPAM plugins (Debian's
 * containernetworking-plugins: static, host-local), a fake agent on a Unix socket whose attach/detach
 * really run the src/netns helpers, and real network namespaces. Root only.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { ManualTimers } from '../../src/util/testing/manual-timers.js';

import { AgentClient } from '../../src/cni/agent-client.js';
import { CniErrorCode } from '../../src/cni/errors.js';
import { createPlugin } from '../../src/cni/plugin.js';
import {
  FakeAgentReply,
  FakeAgentServer,
  type FakeAgentBehaviour,
} from '../../src/cni/testing/fake-agent-server.js';
import { runPlugin, type PluginRun } from '../../src/cni/testing/run-plugin.js';
import { SUPPORTED_CNI_VERSIONS, compareVersions } from '../../src/cni/version.js';
import {
  configurePodInterface,
  createVethIntoNetns,
  deleteHostLink,
  hostVethName,
  linkExistsInNetns,
  NetnsError,
  readPodInterface,
  resolveNetns,
} from '../../src/netns/index.js';

const CNI_PLUGIN_DIR = process.env['VPPNET_CNI_PLUGIN_DIR'] ?? '/usr/lib/cni';
const SKIP =
  process.getuid?.() !== 0
    ? 'needs root: creates network namespaces and veth pairs'
    : !existsSync(join(CNI_PLUGIN_DIR, 'host-local')) || !existsSync(join(CNI_PLUGIN_DIR, 'static'))
      ? `needs the reference IPAM plugins in ${CNI_PLUGIN_DIR} (apt-get install containernetworking-plugins, or set VPPNET_CNI_PLUGIN_DIR)`
      : false;

const MAIN = fileURLToPath(new URL('../../src/cni/main.js', import.meta.url));
const NETWORK = 'vppnet-services';
const IFNAME = 'eth1';
/** Unique per run so parallel runs and leftovers of a crashed run do not collide. */
const RUN = `vppt${process.pid.toString(36)}`;

/** The agent's mapping of netns helper errors onto the protocol's CNI codes. */
function agentReplyFor(err: unknown): FakeAgentReply {
  if (err instanceof NetnsError) {
    if (err.code === 'VPPNET_ERR_POD_IFNAME_EXISTS') {
      return new FakeAgentReply(409, { code: CniErrorCode.POD_IFNAME_EXISTS, msg: err.message });
    }
    if (err.code === 'VPPNET_ERR_NETNS_NOT_FOUND') {
      return new FakeAgentReply(404, { code: CniErrorCode.NETNS_NOT_FOUND, msg: err.message });
    }
  }
  return new FakeAgentReply(500, {
    code: CniErrorCode.INTERNAL,
    msg: err instanceof Error ? err.message : String(err),
  });
}

/** What the real agent does in veth mode, minus VPP: the netns side through src/netns. */
const netnsBackedAgent: Partial<FakeAgentBehaviour> = {
  async attach(request) {
    const hostName = hostVethName(request.containerId, request.ifname);
    let veth;
    try {
      veth = await createVethIntoNetns({
        hostName,
        netnsPath: request.netns,
        podIfName: request.ifname,
        ...(request.mtu !== undefined && { mtu: request.mtu }),
        ...(request.mac !== undefined && { mac: request.mac }),
      });
      await configurePodInterface({
        netnsPath: request.netns,
        ifname: request.ifname,
        addresses: request.ips.map((ip) => ip.address),
        routes: request.routes,
      });
    } catch (err) {
      if (veth !== undefined) await deleteHostLink(hostName);
      throw agentReplyFor(err);
    }
    return {
      interfaces: [
        { name: hostName, mac: veth.hostMac },
        { name: request.ifname, mac: veth.podMac, sandbox: request.netns, mtu: veth.mtu },
      ],
      mode: 'veth',
    };
  },
  async detach(key) {
    await deleteHostLink(hostVethName(key.containerId, key.ifname));
  },
  async getAttachment(key) {
    try {
      const pod = await readPodInterface(key.netns, key.ifname);
      return { ...key, mode: 'veth', interfaces: [], podInterface: pod };
    } catch (err) {
      if (err instanceof NetnsError && err.code === 'VPPNET_ERR_LINK_NOT_FOUND') {
        throw new FakeAgentReply(404, { code: CniErrorCode.ATTACHMENT_NOT_FOUND, msg: err.message });
      }
      throw agentReplyFor(err);
    }
  },
};

void describe('vppnet-cni with reference IPAM plugins in real network namespaces', { skip: SKIP }, () => {
  let dir = '';
  let agentSocket = '';
  let dataDir = '';
  let agent: FakeAgentServer | undefined;
  const namespaces: string[] = [];
  const containerIds: string[] = [];
  const children: ChildProcess[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vppnet-cni-ipam-'));
    agentSocket = join(dir, 'agent.sock');
    dataDir = join(dir, 'host-local');
    agent = await FakeAgentServer.start(agentSocket, netnsBackedAgent);
  });

  after(async () => {
    await agent?.close();
    for (const child of children) child.kill();
    for (const id of containerIds) await deleteHostLink(hostVethName(id, IFNAME)).catch(() => undefined);
    await Promise.all(namespaces.map((name) => execa('ip', ['netns', 'del', name], { reject: false })));
    await rm(dir, { recursive: true, force: true });
  });

  async function newNetns(): Promise<string> {
    const name = `${RUN}-${namespaces.length}`;
    namespaces.push(name);
    await execa('ip', ['netns', 'add', name]);
    return `/var/run/netns/${name}`;
  }

  function newContainerId(label: string): string {
    const id = `${RUN}-${label}-${containerIds.length}`;
    containerIds.push(id);
    return id;
  }

  function staticConfig(cniVersion: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      cniVersion,
      name: NETWORK,
      type: 'vppnet-cni',
      agentSocket,
      mode: 'veth',
      mtu: 1400,
      ipam: {
        type: 'static',
        addresses: [{ address: '169.254.169.103/24', gateway: '169.254.169.1' }],
        routes: [{ dst: '169.252.252.0/24', gw: '169.254.169.1' }],
      },
      ...extra,
    };
  }

  function hostLocalConfig(cniVersion: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      cniVersion,
      name: NETWORK,
      type: 'vppnet-cni',
      agentSocket,
      mode: 'veth',
      ipam: {
        type: 'host-local',
        dataDir,
        ranges: [
          [
            {
              subnet: '169.254.169.0/24',
              rangeStart: '169.254.169.100',
              rangeEnd: '169.254.169.250',
              gateway: '169.254.169.1',
            },
          ],
        ],
        routes: [{ dst: '169.252.252.0/24' }],
      },
      ...extra,
    };
  }

  function cniEnv(command: string, containerId: string, netns: string): Record<string, string> {
    return {
      CNI_COMMAND: command,
      CNI_CONTAINERID: containerId,
      CNI_NETNS: netns,
      CNI_IFNAME: IFNAME,
      CNI_PATH: CNI_PLUGIN_DIR,
    };
  }

  /** The built executable, as a runtime runs it. */
  async function execPlugin(env: Record<string, string>, config: object): Promise<PluginRun> {
    const result = await execa(process.execPath, [MAIN], {
      input: JSON.stringify(config),
      env: { ...env, PATH: process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin' },
      extendEnv: false,
      reject: false,
    });
    return {
      exitCode: result.exitCode ?? -1,
      stdout: result.stdout,
      stderr: result.stderr,
      output:
        result.stdout.trim() === '' ? undefined : (JSON.parse(result.stdout) as Record<string, unknown>),
    };
  }

  /** Address leases host-local holds: its files named after an IP (it also keeps lock and last_reserved_ip.*). */
  async function leases(): Promise<string[]> {
    const files = await readdir(join(dataDir, NETWORK)).catch(() => [] as string[]);
    return files.filter((file) => /^\d+\.\d+\.\d+\.\d+$/.test(file));
  }

  async function podRoutes(netns: string): Promise<{ dst: string; gateway?: string; dev: string }[]> {
    const { stdout } = await execa('nsenter', [`--net=${netns}`, '--', 'ip', '-j', 'route', 'show']);
    return JSON.parse(stdout) as { dst: string; gateway?: string; dev: string }[];
  }

  async function hostLinkNames(): Promise<Set<string>> {
    const { stdout } = await execa('ip', ['-j', 'link', 'show']);
    return new Set((JSON.parse(stdout) as { ifname: string }[]).map((link) => link.ifname));
  }

  for (const version of SUPPORTED_CNI_VERSIONS) {
    void it(`static IPAM, spec ${version}: ADD, CHECK, DEL through the executable`, async () => {
      const netns = await newNetns();
      const containerId = newContainerId('static');
      const hostName = hostVethName(containerId, IFNAME);

      const added = await execPlugin(cniEnv('ADD', containerId, netns), staticConfig(version));
      assert.equal(added.exitCode, 0, added.stdout + added.stderr);
      const result = added.output ?? {};
      assert.equal(result['cniVersion'], version);
      const interfaces = result['interfaces'] as { name: string; sandbox?: string; mac?: string }[];
      const ips = result['ips'] as { address: string; interface: number; version?: string }[];
      assert.equal(ips[0]?.address, '169.254.169.103/24');
      assert.equal(ips[0]?.version, compareVersions(version, '1.0.0') < 0 ? '4' : undefined);
      const pod = interfaces[ips[0]?.interface ?? -1];
      assert.deepEqual([pod?.name, pod?.sandbox], [IFNAME, netns]);

      // The pod really has its interface, address and route, and the host end exists.
      const state = await readPodInterface(netns, IFNAME);
      assert.equal(state.mac, pod?.mac);
      assert.equal(state.mtu, 1400);
      assert.ok(state.up);
      assert.ok(state.addresses.includes('169.254.169.103/24'), state.addresses.join());
      assert.ok(
        (await podRoutes(netns)).some(
          (r) => r.dst === '169.252.252.0/24' && r.gateway === '169.254.169.1' && r.dev === IFNAME,
        ),
      );
      assert.ok((await hostLinkNames()).has(hostName));

      if (compareVersions(version, '0.4.0') >= 0) {
        const checked = await execPlugin(
          cniEnv('CHECK', containerId, netns),
          staticConfig(version, { prevResult: result }),
        );
        assert.equal(checked.exitCode, 0, checked.stdout);
      }

      for (let i = 0; i < 2; i++) {
        const deleted = await execPlugin(
          cniEnv('DEL', containerId, netns),
          staticConfig(version, { prevResult: result }),
        );
        assert.equal(deleted.exitCode, 0, deleted.stdout);
        assert.equal(deleted.stdout, '');
      }
      assert.ok(!(await hostLinkNames()).has(hostName));
      assert.equal(await linkExistsInNetns(netns, IFNAME), false);
    });
  }

  void it('host-local IPAM: the lease lives from ADD to DEL; DEL repeats without netns or prevResult', async () => {
    const netns = await newNetns();
    const containerId = newContainerId('hl');
    const added = await execPlugin(cniEnv('ADD', containerId, netns), hostLocalConfig('1.0.0'));
    assert.equal(added.exitCode, 0, added.stdout + added.stderr);
    const address = (added.output?.['ips'] as { address: string }[])[0]?.address ?? '';
    assert.match(address, /^169\.254\.169\.\d+\/24$/);
    const leased = address.split('/')[0] ?? '';
    assert.deepEqual(await leases(), [leased]);
    assert.match(await readFile(join(dataDir, NETWORK, leased), 'utf8'), new RegExp(containerId));
    assert.ok((await readPodInterface(netns, IFNAME)).addresses.includes(address));

    const checked = await execPlugin(
      cniEnv('CHECK', containerId, netns),
      hostLocalConfig('1.0.0', { prevResult: added.output }),
    );
    assert.equal(checked.exitCode, 0, checked.stdout);

    const deleted = await execPlugin(cniEnv('DEL', containerId, netns), hostLocalConfig('1.0.0'));
    assert.equal(deleted.exitCode, 0, deleted.stdout);
    assert.deepEqual(await leases(), []);

    // The runtime may DEL again, after the netns is gone, and with an empty CNI_NETNS.
    await execa('ip', ['netns', 'del', netns.split('/').at(-1) ?? '']);
    for (const netnsValue of [netns, '']) {
      const again = await execPlugin({ ...cniEnv('DEL', containerId, netnsValue) }, hostLocalConfig('1.0.0'));
      assert.equal(again.exitCode, 0, again.stdout);
    }
  });

  void it('ADD fails when the ifname already exists in the netns, and releases the lease', async () => {
    const netns = await newNetns();
    const containerId = newContainerId('dup');
    // A veth pair inside the pod (the dummy driver may be missing where the tests run).
    await execa('ip', [
      '-n',
      netns.split('/').at(-1) ?? '',
      'link',
      'add',
      IFNAME,
      'type',
      'veth',
      'peer',
      'name',
      'taken1',
    ]);
    const callsBefore = agent?.calls.length ?? 0;

    const added = await execPlugin(cniEnv('ADD', containerId, netns), hostLocalConfig('1.1.0'));
    assert.equal(added.exitCode, 1);
    assert.equal(added.output?.['code'], CniErrorCode.POD_IFNAME_EXISTS);
    assert.deepEqual(await leases(), []);
    assert.ok(!(await hostLinkNames()).has(hostVethName(containerId, IFNAME)));
    // The pod's own interface is left alone, and so is the agent after its refusal: it made nothing.
    assert.equal(await linkExistsInNetns(netns, IFNAME), true);
    assert.deepEqual(
      agent?.calls.slice(callsBefore).map((call) => call.method),
      ['POST'],
    );
  });

  void it('an unreachable agent is code 11 after the bounded wait, with the lease released', async () => {
    const netns = await newNetns();
    const containerId = newContainerId('noagent');
    const budgetMs = 800;
    // The client's pauses run on test time: each is run as soon as it is armed.
    const timers = new ManualTimers();
    const plugin = createPlugin({
      connectAgent: (socketPath) => new AgentClient({ socketPath, connectBudgetMs: budgetMs, timers }),
    });
    const started = timers.now();
    let finished = false;
    const running = runPlugin(
      plugin,
      cniEnv('ADD', containerId, netns),
      hostLocalConfig('1.1.0', { agentSocket: join(dir, 'no-agent.sock') }),
    ).finally(() => (finished = true));
    while (!finished) {
      if (timers.armed.length > 0) timers.runNext();
      else await Promise.race([timers.whenArmed(timers.armedTotal + 1), running]);
    }
    const run = await running;
    assert.equal(run.output?.['code'], CniErrorCode.TRY_AGAIN_LATER);
    assert.equal(timers.now() - started, budgetMs, 'it waited exactly its budget');
    assert.deepEqual(await leases(), []);
  });

  void it('GC and STATUS (1.1.0) reach the agent; host-local 1.1.1 predates them and is skipped', async () => {
    const gcCallsBefore = agent?.callsTo('POST', '/v1/gc').length ?? 0;
    const valid = [{ containerID: 'still-here', ifname: IFNAME }];
    const gc = await execPlugin(
      { CNI_COMMAND: 'GC', CNI_PATH: CNI_PLUGIN_DIR },
      hostLocalConfig('1.1.0', { 'cni.dev/valid-attachments': valid }),
    );
    assert.equal(gc.exitCode, 0, gc.stdout);
    assert.deepEqual(
      agent
        ?.callsTo('POST', '/v1/gc')
        .slice(gcCallsBefore)
        .map((call) => call.body),
      [{ network: NETWORK, validAttachments: valid }],
    );
    const status = await execPlugin(
      { CNI_COMMAND: 'STATUS', CNI_PATH: CNI_PLUGIN_DIR },
      hostLocalConfig('1.1.0'),
    );
    assert.equal(status.exitCode, 0, status.stdout);
    const down = await execPlugin(
      { CNI_COMMAND: 'STATUS', CNI_PATH: CNI_PLUGIN_DIR },
      hostLocalConfig('1.1.0', { agentSocket: join(dir, 'no-agent.sock') }),
    );
    assert.equal(down.output?.['code'], CniErrorCode.PLUGIN_NOT_AVAILABLE);
  });

  void it('100 concurrent ADDs then DELs over distinct containers leave no lease and no link', async () => {
    const pods = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => ({
        netns: await newNetns(),
        containerId: newContainerId(`c${i}`),
      })),
    );
    const plugin = createPlugin();
    const added = await Promise.all(
      pods.map((pod) =>
        runPlugin(plugin, cniEnv('ADD', pod.containerId, pod.netns), hostLocalConfig('1.1.0')),
      ),
    );
    added.forEach((run, i) => assert.equal(run.exitCode, 0, `pod ${i}: ${run.stdout}`));
    const addresses = added.map((run) => (run.output?.['ips'] as { address: string }[])[0]?.address);
    assert.equal(new Set(addresses).size, 100, 'every pod got its own address');
    assert.equal((await leases()).length, 100);
    const states = await Promise.all(pods.map((pod) => readPodInterface(pod.netns, IFNAME)));
    states.forEach((state, i) => assert.ok(state.addresses.includes(addresses[i] ?? ''), `pod ${i}`));
    const hostNames = pods.map((pod) => hostVethName(pod.containerId, IFNAME));
    const linksAfterAdd = await hostLinkNames();
    assert.ok(hostNames.every((name) => linksAfterAdd.has(name)));

    const deleted = await Promise.all(
      pods.map((pod) =>
        runPlugin(plugin, cniEnv('DEL', pod.containerId, pod.netns), hostLocalConfig('1.1.0')),
      ),
    );
    deleted.forEach((run, i) => assert.equal(run.exitCode, 0, `pod ${i}: ${run.stdout}`));
    assert.deepEqual(await leases(), []);
    const linksAfterDel = await hostLinkNames();
    assert.deepEqual(
      hostNames.filter((name) => linksAfterDel.has(name)),
      [],
    );
  });

  void it('netns helpers work on /proc/PID/ns/net paths through nsenter', async () => {
    // unshare runs the shell only once it is in its new namespace (and the shell execs sleep, so
    // the pid stays): its first line means /proc/PID/ns/net is that namespace.
    const holder = spawn('unshare', ['--net', 'sh', '-c', 'echo in-netns; exec sleep 600'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    children.push(holder);
    const path = `/proc/${holder.pid}/ns/net`;
    await once(holder.stdout, 'data');
    const ours = (await execa('readlink', ['/proc/self/ns/net'])).stdout;
    assert.notEqual((await execa('readlink', [path])).stdout, ours);
    assert.deepEqual(await resolveNetns(path), { kind: 'path', path });

    const hostName = hostVethName(newContainerId('proc'), IFNAME);
    const veth = await createVethIntoNetns({ hostName, netnsPath: path, podIfName: IFNAME, mtu: 1300 });
    await configurePodInterface({
      netnsPath: path,
      ifname: IFNAME,
      addresses: ['169.254.169.110/24'],
      routes: [{ dst: '169.252.252.0/24', gw: '169.254.169.1' }],
    });
    const state = await readPodInterface(path, IFNAME);
    assert.deepEqual([state.mac, state.mtu, state.up], [veth.podMac, 1300, true]);
    assert.ok(state.addresses.includes('169.254.169.110/24'));
    await assert.rejects(createVethIntoNetns({ hostName: 'vpnother0', netnsPath: path, podIfName: IFNAME }), {
      code: 'VPPNET_ERR_POD_IFNAME_EXISTS',
    });
    assert.equal(await deleteHostLink(hostName), true);
    assert.equal(await deleteHostLink(hostName), false);
    assert.equal(await linkExistsInNetns(path, IFNAME), false);

    const named = await newNetns();
    assert.deepEqual(await resolveNetns(named), {
      kind: 'named',
      path: named,
      name: named.split('/').at(-1),
    });
    assert.deepEqual(await resolveNetns(named.replace('/var/run/', '/run/')), {
      kind: 'named',
      path: named.replace('/var/run/', '/run/'),
      name: named.split('/').at(-1),
    });
  });
});
