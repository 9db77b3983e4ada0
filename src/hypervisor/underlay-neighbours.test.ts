/**
 * The underlay's neighbour aging and advertisement through the reconciler, against the simulator
 * by default and a real VPP 26.06 when VPP_API_SOCKET is set. What only the simulator can show
 * (the advertisements on the wire, a VPP restart, a link going down, a missing plugin) is skipped
 * on a real VPP; docs/underlay-neighbours.md has what was measured there between two VPPs.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { createUnderlay, removeUnderlay, type TestUnderlay } from '../../test/support/underlay.js';
import { SIM_ONLY, startVppTarget, type VppTarget } from '../../test/support/vpp-target.js';
import type { AgentConfig } from '../config/model.js';
import { ConfigError, validateConfig } from '../config/validate.js';
import { NO_ARPING_WARNING } from '../srv6/underlay-neighbours.js';
import { VppClient } from '../vpp/client/vpp-client.js';
import { msg } from '../vpp/messages/index.js';
import { reconcile } from '../../test/support/host-reconcile.js';
import { memoryStore, type SrGlobalsStore } from './reconcile.js';
import { REQUIRED_MESSAGES } from './required-messages.js';
import { SrGlobalsFileStore } from '../agent/sr-globals-file-store.js';
import { NO_HOST_LINKS } from '../../test/support/no-host-links.js';

const ADDRESS = '2001:db8::1';
const IP6 = msg.address_family_t.values.ADDRESS_IP6;
const IP4 = msg.address_family_t.values.ADDRESS_IP4;

function rawConfig(uplink: string, underlay: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    node: {
      name: 'hv1',
      underlay: { interface: uplink, address: `${ADDRESS}/64`, gateway: '2001:db8::2', ...underlay },
      srv6: { locator: 'fc00:1::/48' },
    },
  };
}

function config(uplink: string, underlay?: Record<string, unknown>): AgentConfig {
  return validateConfig(rawConfig(uplink, underlay));
}

async function pass(
  client: VppClient,
  cfg: AgentConfig,
  globals: SrGlobalsStore,
): Promise<Awaited<ReturnType<typeof reconcile>>> {
  const outcome = await reconcile(cfg, { client, host: NO_HOST_LINKS, globals });
  assert.deepEqual(
    outcome.result?.failed.map((x) => `${x.op.action} ${x.op.resource.key}: ${x.error.message}`),
    [],
    'no operation failed',
  );
  assert.deepEqual(outcome.plan.pending, []);
  return outcome;
}

async function planned(client: VppClient, cfg: AgentConfig, globals: SrGlobalsStore): Promise<string[]> {
  const { plan } = await reconcile(cfg, { client, host: NO_HOST_LINKS, globals, planOnly: true });
  return plan.ops.map((o) => `${o.action} ${o.resource.key}`);
}

async function neighborConfig(
  client: VppClient,
  af: number = IP6,
): Promise<{ maxNumber: number; maxAge: number; recycle: boolean }> {
  const r = await client.call(msg.ip_neighbor_config_get, { af });
  return { maxNumber: r.max_number, maxAge: r.max_age, recycle: r.recycle };
}

function connect(target: VppTarget, name: string): Promise<VppClient> {
  const client = new VppClient({
    socketPath: target.socketPath,
    clientName: name,
    healthCheckIntervalMs: 0,
    retryStrategy: () => 20,
  });
  return client.connect().then(() => client);
}

describe('underlay neighbours', () => {
  let target: VppTarget;
  let client: VppClient;
  let other: VppClient;
  let underlay: TestUnderlay;
  let dir: string;
  let globals: SrGlobalsStore;
  /** Advertisements the simulator had sent before this test (interface indexes are reused). */
  let sentBefore = 0;
  let stateFile = '';
  let tests = 0;

  before(async () => {
    target = await startVppTarget();
    other = await connect(target, 'someone-else');
    client = await connect(target, 'vppnet-test');
    dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-nb-'));
  });
  after(async () => {
    await client.close();
    await other.close();
    await target.close();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    // VPP's own neighbour settings to start from (an earlier suite may have left vppnet's).
    for (const af of [IP4, IP6])
      await other.call(msg.ip_neighbor_config, { af, max_number: 50000, max_age: 0, recycle: false });
    underlay = await createUnderlay(other);
    sentBefore = target.sim?.state.neighbors.advertisements.length ?? 0;
    // A state file per test: a re-created loopback has the same name and MAC on the same VPP.
    stateFile = path.join(dir, `sr-globals-${++tests}.json`);
    globals = new SrGlobalsFileStore(stateFile);
  });
  afterEach(async () => {
    // Leave VPP as found: vppnet's objects, the "NIC", VPP's own neighbour settings.
    await reconcile(
      { ...config(underlay.name), vpcs: [], ports: [], remoteRoutes: [] },
      { client, host: NO_HOST_LINKS, globals: memoryStore() },
    );
    await removeUnderlay(other, underlay);
    for (const af of [IP4, IP6])
      await other.call(msg.ip_neighbor_config, { af, max_number: 50000, max_age: 0, recycle: false });
  });

  const advertisements = (): readonly { swIfIndex: number; address: string; mac: string }[] =>
    target.sim ? target.sim.state.neighbors.advertisements.slice(sentBefore) : [];

  it('converges: aging and recycling on for both families, the address advertised once, a second pass plans nothing', async () => {
    const cfg = config(underlay.name);
    const first = await pass(client, cfg, globals);
    const ops = first.plan.ops.map((o) => `${o.action} ${o.resource.key}`);
    assert.ok(ops.includes('update ip-neighbor-config:ip6'), ops.join('\n'));
    assert.ok(ops.includes('update ip-neighbor-config:ip4'), ops.join('\n'));
    const announce = ops.indexOf(`create neighbor-announcement:${underlay.name}:${ADDRESS}`);
    assert.ok(announce > ops.indexOf(`create address:${underlay.name}:${ADDRESS}/64`), 'after the address');
    assert.ok(announce > ops.indexOf(`create admin-up:${underlay.name}`), 'after admin-up');
    assert.deepEqual(await neighborConfig(client), { maxNumber: 50000, maxAge: 30, recycle: true });
    assert.deepEqual(await neighborConfig(client, IP4), { maxNumber: 50000, maxAge: 30, recycle: true });
    assert.deepEqual(await planned(client, cfg, globals), []);
    await pass(client, cfg, globals);
    if (target.sim) {
      const [d] = await client.dump(msg.sw_interface_dump, { sw_if_index: underlay.swIfIndex });
      assert.deepEqual(
        advertisements(),
        [{ swIfIndex: underlay.swIfIndex, address: ADDRESS, mac: d?.l2_address }],
        'exactly one, with the MAC',
      );
    }
  });

  it('an agent restart sends nothing: the state file remembers the advertisement for this VPP process', async () => {
    const cfg = config(underlay.name);
    await pass(client, cfg, globals);
    const restarted = await connect(target, 'vppnet-restarted');
    try {
      const store = new SrGlobalsFileStore(stateFile);
      const outcome = await pass(restarted, cfg, store);
      assert.deepEqual(outcome.plan.ops, []);
    } finally {
      await restarted.close();
    }
    if (target.sim) assert.equal(advertisements().length, 1);
  });

  it('a changed MAC on the same VPP process is advertised again, with the new MAC', async () => {
    const cfg = config(underlay.name);
    await pass(client, cfg, globals);
    await other.call(msg.sw_interface_set_mac_address, {
      sw_if_index: underlay.swIfIndex,
      mac_address: '02:fe:00:00:0a:0b',
    });
    assert.deepEqual(await planned(client, cfg, globals), [
      `create neighbor-announcement:${underlay.name}:${ADDRESS}`,
    ]);
    await pass(client, cfg, globals);
    assert.deepEqual(await planned(client, cfg, globals), []);
    if (target.sim)
      assert.deepEqual(
        advertisements()
          .map((a) => a.mac)
          .slice(1),
        ['02:fe:00:00:0a:0b'],
      );
  });

  it('a new underlay address is advertised; the old one is not again', async () => {
    await pass(client, config(underlay.name), globals);
    const moved = validateConfig({
      ...rawConfig(underlay.name),
      node: {
        ...(rawConfig(underlay.name).node as object),
        underlay: { interface: underlay.name, address: '2001:db8::7/64', gateway: '2001:db8::2' },
      },
    });
    const ops = await planned(client, moved, globals);
    assert.ok(ops.includes(`create neighbor-announcement:${underlay.name}:2001:db8::7`), ops.join('\n'));
    assert.ok(ops.includes(`delete neighbor-announcement:${underlay.name}:${ADDRESS}`), ops.join('\n'));
    await pass(client, moved, globals);
    assert.deepEqual(await planned(client, moved, globals), []);
    if (target.sim)
      assert.deepEqual(
        advertisements().map((a) => a.address),
        [ADDRESS, '2001:db8::7'],
      );
    await pass(client, config(underlay.name), globals);
  });

  it('a changed neighborMaxAgeSeconds updates VPP in place; 0 turns aging off', async () => {
    await pass(client, config(underlay.name), globals);
    const sixty = config(underlay.name, { neighborMaxAgeSeconds: 60 });
    assert.deepEqual(await planned(client, sixty, globals), [
      'update ip-neighbor-config:ip4',
      'update ip-neighbor-config:ip6',
    ]);
    await pass(client, sixty, globals);
    assert.deepEqual(await neighborConfig(client), { maxNumber: 50000, maxAge: 60, recycle: true });
    assert.deepEqual(await neighborConfig(client, IP4), { maxNumber: 50000, maxAge: 60, recycle: true });
    const never = config(underlay.name, { neighborMaxAgeSeconds: 0 });
    await pass(client, never, globals);
    assert.equal((await neighborConfig(client)).maxAge, 0);
    assert.deepEqual(await planned(client, never, globals), []);
  });

  it('another client changing the neighbour settings is put right by the next pass', async () => {
    const cfg = config(underlay.name);
    await pass(client, cfg, globals);
    await other.call(msg.ip_neighbor_config, { af: IP6, max_number: 10, max_age: 0, recycle: false });
    await other.call(msg.ip_neighbor_config, { af: IP4, max_number: 50000, max_age: 30, recycle: false });
    assert.deepEqual(await planned(client, cfg, globals), [
      'update ip-neighbor-config:ip4',
      'update ip-neighbor-config:ip6',
    ]);
    await pass(client, cfg, globals);
    assert.deepEqual(await neighborConfig(client), { maxNumber: 50000, maxAge: 30, recycle: true });
    assert.deepEqual(await neighborConfig(client, IP4), { maxNumber: 50000, maxAge: 30, recycle: true });
  });
});

describe('underlay neighbours across VPP restarts and link changes (simulator)', { skip: SIM_ONLY }, () => {
  let target: VppTarget;
  let client: VppClient;

  beforeEach(async () => {
    // A memif as the uplink: VPP gives it a new random MAC on every start (no hw-addr given).
    target = await startVppTarget({ initialInterfaces: [{ name: 'memif0/0' }] });
    client = await connect(target, 'vppnet-test');
  });
  afterEach(async () => {
    await client.close();
    await target.close();
  });

  const sent = (): readonly { address: string; mac: string }[] => target.sim!.state.neighbors.advertisements;
  const uplinkIndex = async (): Promise<number> => {
    const all = await client.dump(msg.sw_interface_dump, { sw_if_index: 0xffffffff });
    return all.find((d) => d.interface_name === 'memif0/0')!.sw_if_index;
  };

  it('a new VPP process (new pid, new memif MAC) is advertised again after the reprogramming', async () => {
    const globals = memoryStore();
    const cfg = config('memif0/0');
    await pass(client, cfg, globals);
    assert.equal(sent().length, 1);
    const before = sent()[0]!.mac;

    const ready = new Promise<void>((resolve) => client.on('ready', (info) => info.reconnect && resolve()));
    await target.sim!.restart();
    await ready;
    const [d] = await client.dump(msg.sw_interface_dump, { sw_if_index: await uplinkIndex() });
    assert.notEqual(d?.l2_address, before, 'the memif came back with another MAC');
    const ops = (await pass(client, cfg, globals)).plan.ops.map((o) => `${o.action} ${o.resource.key}`);
    assert.ok(ops.includes('create neighbor-announcement:memif0/0:2001:db8::1'), ops.join('\n'));
    assert.deepEqual(sent(), [{ swIfIndex: d?.sw_if_index, address: ADDRESS, mac: d?.l2_address }]);
    assert.deepEqual(await planned(client, cfg, globals), []);
  });

  it('with the link down the advertisement fails (and is not remembered); the pass after link-up sends it', async () => {
    const globals = memoryStore();
    const cfg = config('memif0/0');
    target.sim!.setLinkState(await uplinkIndex(), false);
    const outcome = await reconcile(cfg, { client, host: NO_HOST_LINKS, globals });
    const failed = outcome.result?.failed.map((f) => `${f.op.resource.key}: ${f.error.message}`) ?? [];
    assert.equal(failed.length, 1, failed.join('\n'));
    assert.match(failed[0]!, /^neighbor-announcement:memif0\/0:2001:db8::1: memif0\/0's link is down/);
    assert.equal(sent().length, 0);
    assert.deepEqual(await planned(client, cfg, globals), [
      'create neighbor-announcement:memif0/0:2001:db8::1',
    ]);

    target.sim!.setLinkState(await uplinkIndex(), true);
    await pass(client, cfg, globals);
    assert.equal(sent().length, 1);
    assert.deepEqual(await planned(client, cfg, globals), []);
  });

  it('without ip_neighbor_config_get (in_progress in 26.06): connects, and sets the settings on every pass', async () => {
    target.sim!.removeMessage('ip_neighbor_config_get');
    const fresh = new VppClient({
      socketPath: target.socketPath,
      healthCheckIntervalMs: 0,
      requiredMessages: REQUIRED_MESSAGES,
    });
    await fresh.connect();
    try {
      const globals = memoryStore();
      const cfg = config('memif0/0');
      await pass(fresh, cfg, globals);
      assert.deepEqual(target.sim!.state.neighbors.config.ip6, {
        maxNumber: 50000,
        maxAge: 30,
        recycle: true,
      });
      assert.deepEqual(await planned(fresh, cfg, globals), [
        'create ip-neighbor-config:ip4',
        'create ip-neighbor-config:ip6',
      ]);
    } finally {
      await fresh.close();
    }
  });

  it('without the arping plugin: a warning, no failed operation, nothing planned twice', async () => {
    target.sim!.removeMessage('arping');
    const fresh = await connect(target, 'vppnet-no-arping');
    try {
      const globals = memoryStore();
      const cfg = config('memif0/0');
      const outcome = await pass(fresh, cfg, globals);
      assert.deepEqual(outcome.warnings, [NO_ARPING_WARNING]);
      assert.ok(!outcome.plan.ops.some((o) => o.resource.kind === 'neighbor-announcement'));
      assert.deepEqual(
        await neighborConfig(fresh),
        { maxNumber: 50000, maxAge: 30, recycle: true },
        'aging still set',
      );
      assert.deepEqual(await planned(fresh, cfg, globals), []);
    } finally {
      await fresh.close();
    }
  });
});

describe('node.underlay.neighborMaxAgeSeconds', () => {
  it('defaults to 30 and accepts 0 to 86400', () => {
    assert.equal(config('memif0/0').node.underlay.neighborMaxAgeSeconds, 30);
    assert.equal(config('memif0/0', { neighborMaxAgeSeconds: 0 }).node.underlay.neighborMaxAgeSeconds, 0);
    assert.equal(
      config('memif0/0', { neighborMaxAgeSeconds: 86400 }).node.underlay.neighborMaxAgeSeconds,
      86400,
    );
  });

  for (const bad of [-1, 86401, 1.5, '30', null]) {
    it(`rejects ${JSON.stringify(bad)}, naming the field`, () => {
      assert.throws(
        () => config('memif0/0', { neighborMaxAgeSeconds: bad }),
        (err: unknown) =>
          err instanceof ConfigError &&
          err.problems.some(
            (p) =>
              p.path === 'node.underlay.neighborMaxAgeSeconds' && /integer from 0 to 86400/.test(p.message),
          ),
      );
    });
  }
});

describe("a VM that fills VPP's neighbour tables (simulator)", { skip: SIM_ONLY }, () => {
  // The simulator has no dataplane: what VPP learns from a VM's ARP requests and solicitations
  // (arp.c, ip6_nd_mirror_proxy.c) is added through its test hook. On a real VPP:
  // test/integration/vm-edge-attacks.test.ts floods a VM's port.
  const LIMIT = 50_000;
  const vm = (n: number): Record<string, unknown> => ({
    name: `vm${n}`,
    vpc: 'vpc-a',
    ip: `10.0.0.${4 + n}`,
    mac: `52:54:00:00:0d:0${n}`,
    attach: { type: 'interface', name: `memif${n}/0` },
  });
  const withPorts = (...ports: number[]): AgentConfig =>
    validateConfig({
      ...rawConfig('memif0/0'),
      vpcs: [{ name: 'vpc-a', id: 10, subnets: ['10.0.0.0/24', '2001:db8:a::/64'], gateway: '10.0.0.1' }],
      ports: ports.map(vm),
    });

  it('a port added after the flood is programmed whole, its VM a static neighbour in both families', async () => {
    const target = await startVppTarget({
      initialInterfaces: [{ name: 'memif0/0' }, { name: 'memif1/0' }, { name: 'memif2/0' }],
    });
    const client = await connect(target, 'vppnet-test');
    try {
      const globals = memoryStore();
      await pass(client, withPorts(1), globals);
      const all = await client.dump(msg.sw_interface_dump, { sw_if_index: 0xffffffff });
      const port1 = all.find((d) => d.interface_name === 'memif1/0')!.sw_if_index;
      const sim = target.sim!;
      for (let i = 0; i < LIMIT + 10; i++) {
        assert.equal(sim.learnNeighbor(port1, `100.64.${i >> 8}.${i & 0xff}`, '52:54:00:00:0d:01'), 0);
        assert.equal(sim.learnNeighbor(port1, `2001:db8:ff::${i.toString(16)}`, '52:54:00:00:0d:01'), 0);
      }
      const entries = sim.state.neighbors.entries;
      assert.equal(entries.filter((e) => !e.address.includes(':')).length, LIMIT);
      assert.equal(entries.filter((e) => e.address.includes(':')).length, LIMIT);

      // vm2 comes after the flood: its static entries take the oldest learned ones' places.
      await pass(client, withPorts(1, 2), globals);
      const port2 = all.find((d) => d.interface_name === 'memif2/0')!.sw_if_index;
      const statics = (await client.dump(msg.ip_neighbor_dump, { sw_if_index: port2, af: IP4 }))
        .concat(await client.dump(msg.ip_neighbor_dump, { sw_if_index: port2, af: IP6 }))
        .map((d) => `${d.neighbor.flags} ${d.neighbor.mac_address}`);
      assert.deepEqual(statics, ['1 52:54:00:00:0d:02', '1 52:54:00:00:0d:02']);
      // vm1's static entries were never the flood's to take.
      assert.equal(
        (await client.dump(msg.ip_neighbor_dump, { sw_if_index: port1, af: IP4 })).filter(
          (d) => d.neighbor.flags === 1,
        ).length,
        1,
      );
      assert.deepEqual(await planned(client, withPorts(1, 2), globals), []);
    } finally {
      await client.close();
      await target.close();
    }
  });
});
