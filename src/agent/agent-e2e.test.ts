/**
 * vppnet-agent end to end against the VPP simulator: a real config file watched on disk, the
 * agent's own VPP client, restarts of VPP and of the agent, and the local API socket.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml, stringify } from 'yaml';
import { SIM_ONLY, startVppTarget, type VppTarget } from '../../test/support/vpp-target.js';
import { VppClient } from '../vpp/client/vpp-client.js';
import { msg } from '../vpp/messages/index.js';
import { Agent } from './agent.js';
import { FileConfigSource } from './file-config-source.js';
import { agentVppClient } from './agent-vpp-client.js';
import type { ConfigStatus, PassResult, ReconcileSummary } from './status.js';

function configYaml(underlay: string, routes: number, vhostDir: string): string {
  return stringify({
    node: {
      name: 'hv1',
      underlay: { interface: underlay, address: '2001:db8::1/64', gateway: '2001:db8::2' },
      vhostUser: { directory: vhostDir },
      srv6: { locator: 'fc00:1::/48' },
    },
    vpcs: [{ name: 'vpc-a', id: 10, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' }],
    ports: [
      {
        name: 'vm1',
        vpc: 'vpc-a',
        mac: '52:54:00:00:00:05',
        ip: '10.0.0.5',
        attach: { type: 'vhost-user', socket: path.join(vhostDir, 'vm1.sock') },
      },
    ],
    remoteRoutes: Array.from({ length: routes }, (_, i) => ({
      vpc: 'vpc-a',
      prefix: `10.1.${i}.0/24`,
      sid: 'fc00:2::a',
    })),
    services: { dhcpServer: '169.254.169.103' },
  });
}

/** Resolves with the next config read that matches. */
function nextConfig(agent: Agent, match: (s: ConfigStatus) => boolean): Promise<ConfigStatus> {
  return new Promise((resolve) => {
    const on = (s: ConfigStatus): void => {
      if (!match(s)) return;
      agent.off('config', on);
      resolve(s);
    };
    agent.on('config', on);
  });
}

/** Resolves with the next finished pass that matches. */
function nextPass(
  agent: Agent,
  match: (s: ReconcileSummary) => boolean = () => true,
  timeoutMs = 10_000,
): Promise<ReconcileSummary> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no matching reconcile pass')), timeoutMs);
    const on = (s: ReconcileSummary): void => {
      if (!match(s)) return;
      clearTimeout(timer);
      agent.off('reconcile', on);
      resolve(s);
    };
    agent.on('reconcile', on);
  });
}

function get(socketPath: string, urlPath: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ socketPath, path: urlPath }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
}

async function steeringCount(client: VppClient): Promise<number> {
  return (await client.dump(msg.sr_steering_pol_dump, {})).filter((s) => s.bsid.startsWith('fc00:1:ff::'))
    .length;
}

describe('vppnet-agent against the simulator', { skip: SIM_ONLY }, () => {
  let target: VppTarget;
  let dir: string;
  let observer: VppClient;
  let underlay: string;
  const configPath = (): string => path.join(dir, 'config.yaml');
  const agentSocket = (): string => path.join(dir, 'run', 'agent.sock');
  const newAgent = (): Agent =>
    new Agent({
      source: new FileConfigSource({ path: configPath(), debounceMs: 20 }),
      stateDir: path.join(dir, 'state'),
      client: agentVppClient(target.socketPath),
      vppSocketPath: target.socketPath,
      agentSocketPath: agentSocket(),
      driftIntervalMs: 0,
      retryInitialMs: 50,
    });
  const makeUnderlay = async (): Promise<void> => {
    await observer.whenReady(5000);
    const lo = await observer.call(msg.create_loopback_instance, {});
    const [d] = await observer.dump(msg.sw_interface_dump, { sw_if_index: lo.sw_if_index });
    underlay = d!.interface_name;
  };

  before(async () => {
    target = await startVppTarget();
    dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-agent-e2e-'));
    observer = new VppClient({
      socketPath: target.socketPath,
      clientName: 'observer',
      healthCheckIntervalMs: 0,
      retryStrategy: () => 20,
    });
    await observer.connect();
    await makeUnderlay();
  });
  after(async () => {
    await observer.close();
    await target.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('converges, follows config changes, keeps the last good config, survives VPP and agent restarts', async () => {
    await writeFile(configPath(), configYaml(underlay, 3, dir));
    const agent = newAgent();
    const first = nextPass(agent, (s) => s.outcome === 'ok');
    await agent.start();
    const s1 = await first;
    assert.ok(s1.applied > 20, `applied ${s1.applied}`);
    assert.equal(await steeringCount(observer), 3);
    // The local API answers on its socket, owner-only.
    assert.equal((await stat(agentSocket())).mode & 0o777, 0o600);
    const status = await get(agentSocket(), '/v1/status');
    assert.equal(status.status, 200);
    const map = JSON.parse((await get(agentSocket(), '/v1/service-map')).body) as {
      vmIp: string;
      serviceAddress: string;
    }[];
    assert.equal(map.find((e) => e.vmIp === '10.0.0.5')?.serviceAddress.startsWith('169.252.252.'), true);

    // A valid change: one pass, exactly the new steering entry.
    const changed = nextPass(agent, (s) => s.triggers.includes('config-change'));
    await writeFile(configPath(), configYaml(underlay, 4, dir));
    const s2 = await changed;
    assert.equal(s2.outcome, 'ok');
    assert.equal(s2.applied, 1);
    assert.equal(await steeringCount(observer), 4);

    // An invalid file changes nothing in VPP and is reported.
    const invalid = nextConfig(agent, (s) => !s.valid && JSON.stringify(s.problems).includes('ports[0].ip'));
    await writeFile(configPath(), configYaml(underlay, 4, dir).replace('10.0.0.5', '10.0.0.500'));
    await invalid;
    await agent.whenIdle();
    assert.equal(agent.status().config.valid, false);
    assert.match(JSON.stringify(agent.status().config.problems), /ports\[0\]\.ip/);
    assert.equal(agent.readiness().ready, false);
    assert.equal(await steeringCount(observer), 4, 'the last good state stays');

    // VPP restarts: everything is lost there; the agent resyncs on reconnect.
    const valid = nextConfig(agent, (s) => s.valid);
    await writeFile(configPath(), configYaml(underlay, 4, dir));
    await valid;
    await agent.whenIdle();
    const sim = target.sim!;
    await sim.restart({ reshuffleIds: true, downtimeMs: 100 });
    await makeUnderlay(); // the NIC "comes back" under the same kind of name
    await writeFile(configPath(), configYaml(underlay, 4, dir));
    await nextPass(agent, (s) => s.outcome === 'ok' && s.applied > 0, 15_000);
    await agent.whenIdle();
    assert.equal(await steeringCount(observer), 4);

    // Agent restart: the new agent adopts VPP's state and sends nothing.
    await agent.stop();
    assert.equal(await steeringCount(observer), 4, 'stopping leaves the dataplane programmed');
    const again = newAgent();
    const adopted = nextPass(again, (s) => s.outcome === 'ok');
    await again.start();
    const s3 = await adopted;
    assert.equal(s3.planned, 0, `planned ${s3.planned} after an agent restart`);
    const pass: PassResult = await again.reconcileNow();
    assert.equal(pass.outcome, 'ok');
    await again.stop();
  });

  it('stays Ready with a VM port VPP cannot create, and names that port and why', async () => {
    const blocker = path.join(dir, 'not-a-directory');
    await writeFile(blocker, '');
    const config = parseYaml(configYaml(underlay, 1, dir)) as {
      ports: { name: string; attach: { socket: string } }[];
    };
    config.ports.push({
      ...config.ports[0]!,
      name: 'vm-bad',
      mac: '52:54:00:00:00:06',
      ip: '10.0.0.6',
      attach: { type: 'vhost-user', socket: path.join(blocker, 'vm-bad.sock') },
    } as never);
    await writeFile(configPath(), stringify(config));
    const agent = newAgent();
    const first = nextPass(agent);
    await agent.start();
    try {
      const pass = await first;
      assert.equal(pass.outcome, 'partial', 'retried with backoff like any failure');
      assert.equal(pass.nodeProblems, 0);
      assert.deepEqual(
        pass.brokenPorts.map((p) => p.port),
        ['vm-bad'],
      );
      const readiness = agent.readiness();
      assert.equal(readiness.ready, true, readiness.reasons.join('; '));
      assert.equal(readiness.brokenPorts.length, 1);
      assert.match(
        readiness.brokenPorts[0]!,
        new RegExp(
          `^port vm-bad: host-directory:${blocker}: create failed: .*${blocker} exists and is not a directory`,
        ),
      );
      assert.match(await agent.metrics.registry.metrics(), /^vppnet_vm_ports_broken 1$/m);
      const good = (await observer.dump(msg.sw_interface_dump, { sw_if_index: 0xffffffff })).filter(
        (i) => i.tag === 'vppnet:vm:vm1',
      );
      assert.equal(good.length, 1, 'the good port is served');
    } finally {
      await agent.stop();
    }
  });

  it(
    'removes a pod whose netns vanished without a DEL at once, with no drift check',
    { skip: process.getuid?.() !== 0 && 'needs root (netns, veth)' },
    async () => {
      await writeFile(configPath(), configYaml(underlay, 1, dir));
      const agent = newAgent(); // driftIntervalMs: 0, so only the link watch can notice
      const first = nextPass(agent, (s) => s.outcome === 'ok');
      await agent.start();
      await first;
      const netns = `vppnet-e2e-${process.pid}`;
      execFileSync('ip', ['netns', 'add', netns]);
      try {
        const attach = await post(agentSocket(), '/v1/attachments', {
          network: 'vppnet-services',
          containerId: 'c-vanishing',
          ifname: 'net1',
          netns: `/var/run/netns/${netns}`,
          mode: 'veth',
          ips: [{ address: '169.254.169.103/24', gateway: '169.254.169.1' }],
          routes: [],
        });
        assert.equal(attach.status, 200, attach.body);
        const podPorts = async (): Promise<number> =>
          (await observer.dump(msg.sw_interface_dump, { sw_if_index: 0xffffffff })).filter((i) =>
            i.tag.startsWith('vppnet:pod:'),
          ).length;
        assert.equal(await podPorts(), 1);

        // The pod goes without a DEL: its netns is deleted, the kernel destroys its veth pair.
        execFileSync('ip', ['netns', 'del', netns]);
        const deadline = Date.now() + 5000;
        while ((await podPorts()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        assert.equal(await podPorts(), 0, 'the pod port left VPP without waiting for a drift check');
        assert.equal(
          (await get(agentSocket(), '/v1/attachments?containerId=c-vanishing&ifname=net1&netns=')).status,
          404,
        );
      } finally {
        try {
          execFileSync('ip', ['netns', 'del', netns], { stdio: 'ignore' });
        } catch {
          // already gone
        }
        await agent.stop();
      }
    },
  );
});

function post(socketPath: string, urlPath: string, body: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = http.request(
      {
        socketPath,
        path: urlPath,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
