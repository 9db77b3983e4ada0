/**
 * Issue #9's check on real VPPs: two VPP 26.06 instances whose agents (the real executable,
 * `--datastore etcd`) take their desired state from a real etcd; VMs are network namespaces on
 * veth ports; the underlay is a veth pair, an af_packet interface in each VPP. Records are written
 * with `vppnet datastore put` as an operator would. Traffic crosses the SRv6 overlay, then a VM
 * moves to the other node with one put and one delete, and traffic follows it.
 *
 * Needs two fresh VPPs of its own: VPPNET_FLEET_VPP_SOCKETS=/run/vppA/api.sock,/run/vppB/api.sock
 * (they are left programmed, as a deployment would be), root, etcd, iproute2 and ping. CI has
 * no VPP, so it is skipped there, saying why.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ETCD_BINARY, EtcdServer, freePort } from '../../src/datastore/testing/etcd-server.js';
import { runCli } from '../../src/cli/testing/cli-etcd.js';
import { VppClient } from '../../src/vpp/client/vpp-client.js';
import { until } from '../../src/util/testing/until.js';
import { dumpSteering } from '../support/steering.js';
import { msg } from '../../src/vpp/messages/index.js';

const SOCKETS = (process.env.VPPNET_FLEET_VPP_SOCKETS ?? '').split(',').filter(Boolean);
/** The agent as the image runs it: the one-file bundle `npm run build` makes. */
const AGENT = fileURLToPath(new URL('../../bundle/vppnet-agent.js', import.meta.url));
const has = (cmd: string): boolean => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const skip =
  SOCKETS.length !== 2
    ? 'needs two fresh real VPPs: VPPNET_FLEET_VPP_SOCKETS=/run/vppA/api.sock,/run/vppB/api.sock'
    : process.getuid?.() !== 0
      ? 'needs root (network namespaces, veth pairs)'
      : !existsSync(ETCD_BINARY)
        ? `no etcd at ${ETCD_BINARY}`
        : !has('ping')
          ? 'needs ping (iputils-ping)'
          : false;

/** Agents starting, listing etcd and programming VPP, guests resolving ARP: seconds here; a failure after 30. */
const WAIT = { timeoutMs: 30_000, everyMs: 100 };

function sh(...args: string[]): string {
  const r = spawnSync(args[0] as string, args.slice(1), { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr || r.stdout}`);
  return r.stdout;
}

/** One ICMP echo answered (ARP and ND are resolved by the first ones). */
function pings(netns: string, to: string): boolean {
  return spawnSync('ip', ['netns', 'exec', netns, 'ping', '-c', '1', '-W', '1', to]).status === 0;
}

describe(
  'fleet mode on two real VPPs: a VM moved with vppnet datastore put, traffic follows',
  { skip },
  () => {
    const tag = randomBytes(2).toString('hex');
    const ul = [`vfu${tag}a`, `vfu${tag}b`];
    const ns = { vm1: `vf${tag}vm1`, vm2: `vf${tag}vm2`, vm3: `vf${tag}vm3`, vm2b: `vf${tag}vm2b` };
    const nodes = ['fa', 'fb'];
    let etcd: EtcdServer;
    let dir: string;
    let env: NodeJS.ProcessEnv;
    const agents: ChildProcess[] = [];

    const put = async (lines: string[]): Promise<void> => {
      const file = path.join(dir, `put-${randomBytes(3).toString('hex')}.yaml`);
      writeFileSync(file, lines.join('\n'));
      const r = await runCli(['datastore', 'put', '-f', file], env);
      assert.equal(r.code, 0, r.out);
    };
    const vmPort = (name: string, mac: string, ip: string, netns: string): string =>
      `    ${name}: { vpc: vpc-a, mac: '${mac}', ip: ${ip}, attach: { type: veth, netns: ${netns}, ifname: eth0 } }`;
    /** Gives a "VM" its address once the agent has made its port's veth. */
    const bootVm = async (netns: string, ip: string): Promise<void> => {
      await until(
        () => spawnSync('ip', ['-n', netns, 'link', 'show', 'eth0']).status === 0,
        `eth0 in ${netns}`,
        WAIT,
      );
      sh('ip', '-n', netns, 'addr', 'add', `${ip}/24`, 'dev', 'eth0');
      sh('ip', '-n', netns, 'link', 'set', 'eth0', 'up');
      sh('ip', '-n', netns, 'route', 'add', 'default', 'via', '10.0.0.1');
    };

    before(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'vppnet-fleet-vpps-'));
      etcd = await EtcdServer.start();
      env = { VPPNET_ETCD_ENDPOINTS: etcd.endpoint, VPPNET_DATASTORE_PREFIX: '/fleet-test/v1/' };
      sh('ip', 'link', 'add', ul[0] as string, 'type', 'veth', 'peer', 'name', ul[1] as string);
      for (const l of ul) sh('ip', 'link', 'set', l, 'up');
      for (const n of Object.values(ns)) sh('ip', 'netns', 'add', n);
      // The underlay NICs: someone else's interfaces to the agents, as DPDK NICs would be.
      const underlays: string[] = [];
      for (const [i, socket] of SOCKETS.entries()) {
        const c = new VppClient({
          socketPath: socket,
          clientName: 'vppnet-test-fleet',
          healthCheckIntervalMs: 0,
        });
        await c.connect();
        try {
          const { sw_if_index } = await c.call(msg.af_packet_create_v3, {
            mode: 1,
            hw_addr: `02:fe:00:00:00:0${i + 1}`,
            use_random_hw_addr: false,
            host_if_name: ul[i] as string,
            flags: 3,
            num_rx_queues: 1,
            num_tx_queues: 1,
          });
          const [d] = await c.dump(msg.sw_interface_dump, { sw_if_index });
          underlays.push(d!.interface_name);
        } finally {
          await c.close();
        }
      }
      await put([
        'nodes:',
        `  fa: { underlay: { interface: ${underlays[0]}, address: '2001:db8:f::a/64', gateway: '2001:db8:f::b' }, srv6: { locator: 'fc00:fa::/48' } }`,
        `  fb: { underlay: { interface: ${underlays[1]}, address: '2001:db8:f::b/64', gateway: '2001:db8:f::a' }, srv6: { locator: 'fc00:fb::/48' } }`,
        'vpcs:',
        '  vpc-a: { id: 10, subnets: [10.0.0.0/24], gateway: 10.0.0.1 }',
        'ports:',
        '  fa:',
        vmPort('vm1', '52:54:00:fa:00:05', '10.0.0.5', ns.vm1),
        '  fb:',
        vmPort('vm2', '52:54:00:fb:00:07', '10.0.0.7', ns.vm2),
        vmPort('vm3', '52:54:00:fb:00:09', '10.0.0.9', ns.vm3),
        'endpoints:',
        '  vpc-a: { 10.0.0.5/32: fa, 10.0.0.7/32: fb, 10.0.0.9/32: fb }',
      ]);
      for (const [i, node] of nodes.entries()) {
        const state = path.join(dir, node);
        const child = spawn(
          process.execPath,
          [
            AGENT,
            ...['--datastore', 'etcd', '--node-name', node, '--etcd-endpoints', etcd.endpoint],
            ...['--datastore-prefix', '/fleet-test/v1/', '--vpp-socket', SOCKETS[i] as string],
            ...['--state-dir', state, '--agent-socket', path.join(dir, `${node}.sock`)],
            ...['--service-map-socket', path.join(dir, `${node}-services`, 'service-map.sock')],
            ...['--listen', `127.0.0.1:${await freePort()}`, '--log-level', 'warn'],
          ],
          { stdio: ['ignore', 'ignore', 'inherit'] },
        );
        agents.push(child);
      }
    });

    after(async () => {
      for (const a of agents) {
        if (a.exitCode !== null) continue;
        const exited = new Promise((r) => a.once('exit', r));
        a.kill('SIGTERM');
        await exited;
      }
      await etcd?.stop();
      for (const n of Object.values(ns)) spawnSync('ip', ['netns', 'del', n]);
      spawnSync('ip', ['link', 'del', ul[0] as string]);
      rmSync(dir, { recursive: true, force: true });
    });

    test("each VPP steers the other node's VMs to its End.DT4 SID, and traffic crosses", async () => {
      let a = new Map<string, string>();
      await until(
        async () => {
          a = await dumpSteering(SOCKETS[0] as string);
          return a.get('10 10.0.0.7/32') === 'fc00:fb::a' && a.get('10 10.0.0.9/32') === 'fc00:fb::a';
        },
        'fa steering 10.0.0.7 and 10.0.0.9 to fb',
        WAIT,
      );
      assert.equal(a.size, 2, 'fa steers nothing else');
      let b = new Map<string, string>();
      await until(
        async () => {
          b = await dumpSteering(SOCKETS[1] as string);
          return b.get('10 10.0.0.5/32') === 'fc00:fa::a';
        },
        'fb steering 10.0.0.5 to fa',
        WAIT,
      );
      assert.equal(b.size, 1, 'fb steers nothing else');
      await bootVm(ns.vm1, '10.0.0.5');
      await bootVm(ns.vm2, '10.0.0.7');
      await bootVm(ns.vm3, '10.0.0.9');
      await until(() => pings(ns.vm1, '10.0.0.7'), 'vm1 (fa) → vm2 (fb) over SRv6', WAIT);
      await until(() => pings(ns.vm3, '10.0.0.5'), 'vm3 (fb) → vm1 (fa) over SRv6', WAIT);
      await until(() => pings(ns.vm3, '10.0.0.7'), 'vm3 → vm2, both on fb', WAIT);
    });

    test('vm2 moves to fa with one put and one delete: both VPPs re-point, and traffic follows', async () => {
      await put([
        'ports:',
        '  fa:',
        vmPort('vm2', '52:54:00:fb:00:07', '10.0.0.7', ns.vm2b),
        'endpoints:',
        '  vpc-a: { 10.0.0.7/32: fa }',
      ]);
      const deleted = await runCli(['datastore', 'delete', 'ports/fb/vm2'], env);
      assert.equal(deleted.code, 0, deleted.out);
      await bootVm(ns.vm2b, '10.0.0.7');
      await until(
        async () => (await dumpSteering(SOCKETS[1] as string)).get('10 10.0.0.7/32') === 'fc00:fa::a',
        'fb steering 10.0.0.7 to fa',
        WAIT,
      );
      await until(
        async () => !(await dumpSteering(SOCKETS[0] as string)).has('10 10.0.0.7/32'),
        'fa no longer steering 10.0.0.7 (it is local)',
        WAIT,
      );
      await until(
        () => spawnSync('ip', ['-n', ns.vm2, 'link', 'show', 'eth0']).status !== 0,
        "fb's old port gone from vm2's old netns",
        WAIT,
      );
      await until(() => pings(ns.vm3, '10.0.0.7'), 'vm3 (fb) → vm2, now on fa, over SRv6', WAIT);
      await until(() => pings(ns.vm1, '10.0.0.7'), 'vm1 → vm2, now both on fa', WAIT);
    });
  },
);
