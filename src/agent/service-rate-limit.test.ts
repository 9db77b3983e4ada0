/**
 * Per-VM fairness on the service plane (services/vm-rate-limit.ts): the reconciler gives each VM
 * port a policer of its own on its traffic to the service addresses. What VPP would do with a
 * packet is judged by the simulator's model of ip4-policer-classify (policerClassifyVerdict); the
 * same flood with real packets on a real VPP is in test/integration/service-plane-traffic.test.ts.
 * The state checks (read back, changes, leftovers) also run against a real VPP with
 * VPP_API_SOCKET.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startVppTarget, type VppTarget } from '../../test/support/vpp-target.js';
import { createUnderlay, removeUnderlay } from '../../test/support/underlay.js';
import { validateConfig } from '../config/validate.js';
import { InterfaceRegistry } from '../dataplane/interface-registry.js';
import { AclRegistry } from '../dataplane/acl-registry.js';
import { NO_HOST_FILES } from '../dataplane/context.js';
import { tags } from '../dataplane/keys.js';
import { MACIP } from '../services/context.js';
import { vmRateLimitDescriptor } from '../services/vm-rate-limit.js';
import { RecordingVppApi } from '../vpp/client/testing/recording-vpp-api.js';
import { VppClient } from '../vpp/client/vpp-client.js';
import { msg } from '../vpp/messages/index.js';
import { memoryStore, reconcile } from './reconciler.js';
import { NO_HOST_LINKS } from '../../test/support/no-host-links.js';

const METADATA = '169.254.169.254';
const DNS = '169.254.169.53';

interface Fixture {
  target: VppTarget;
  client: VppClient;
  dir: string;
  uplink: string;
  globals: ReturnType<typeof memoryStore>;
  /** The loopback standing in for the uplink, deleted at the end (a real VPP is shared). */
  uplinkIndex: number;
}

/** A VPP target, a client, and a loopback standing in for the uplink. */
async function openFixture(): Promise<Fixture> {
  const target = await startVppTarget();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-rate-'));
  const client = new VppClient({
    socketPath: target.socketPath,
    clientName: 'vppnet-test',
    healthCheckIntervalMs: 0,
  });
  await client.connect();
  const uplink = await createUnderlay(client);
  return { target, client, dir, uplink: uplink.name, globals: memoryStore(), uplinkIndex: uplink.swIfIndex };
}

/** Empties the node, deletes the loopback (a real VPP is shared), closes everything. */
async function closeFixture(f: Fixture): Promise<void> {
  await apply(f, { ...rawConfig(f, { ports: [] }), vpcs: [], services: undefined }).catch(() => undefined);
  await removeUnderlay(f.client, { name: f.uplink, swIfIndex: f.uplinkIndex });
  await f.client.close();
  await f.target.close();
  await rm(f.dir, { recursive: true, force: true });
}

function rawConfig(
  f: Fixture,
  opts: { ports?: number[]; vmLimits?: Record<string, number> } = {},
): Record<string, unknown> {
  return {
    node: {
      name: 'hv1',
      underlay: { interface: f.uplink, address: '2001:db8::1/64', gateway: '2001:db8::2' },
      vhostUser: { directory: f.dir },
      srv6: { locator: 'fc00:1::/48' },
    },
    vpcs: [{ name: 'vpc-a', id: 10, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' }],
    ports: (opts.ports ?? [1, 2]).map((n) => ({
      name: `vm${n}`,
      vpc: 'vpc-a',
      mac: `52:54:00:00:0c:0${n}`,
      ip: `10.0.0.${n + 4}`,
      attach: { type: 'vhost-user', socket: path.join(f.dir, `vm${n}.sock`) },
    })),
    remoteRoutes: [],
    services: {
      dnsAddress: DNS,
      dhcpServer: '169.254.169.103',
      ...(opts.vmLimits && { vmLimits: opts.vmLimits }),
    },
  };
}

async function apply(f: Fixture, raw: unknown): Promise<{ ops: string[] }> {
  const outcome = await reconcile(validateConfig(raw), {
    client: f.client,
    host: NO_HOST_LINKS,
    globals: f.globals,
  });
  assert.deepEqual(
    outcome.result?.failed.map((x) => `${x.op.action} ${x.op.resource.key}: ${x.error.message}`),
    [],
  );
  return { ops: outcome.plan.ops.map((o) => `${o.action} ${o.resource.key}`) };
}

async function portIndex(f: Fixture, n: number): Promise<number | undefined> {
  const all = await f.client.dump(msg.sw_interface_dump, {
    sw_if_index: 0xffffffff,
    name_filter_valid: false,
  });
  return all.find((i) => i.tag === `vppnet:vm:vm${n}`)?.sw_if_index;
}

/** vppnet's policers as VPP lists them: name → cir (kbit/s) and committed burst (bytes). */
async function policers(f: Fixture): Promise<Map<string, { cir: number; cb: number }>> {
  const all = await f.client.dump(msg.policer_dump_v2, { policer_index: 0xffffffff });
  return new Map(all.map((p) => [p.name, { cir: p.cir, cb: Number(p.cb) }]));
}

/** The IPv4 policer-classify bindings: sw_if_index → table. */
async function bindings(f: Fixture): Promise<Map<number, number>> {
  const all = await f.client.dump(msg.policer_classify_dump, {
    type: msg.policer_classify_table_t.values.POLICER_CLASSIFY_API_TABLE_IP4,
    sw_if_index: 0,
  });
  return new Map(all.map((b) => [b.sw_if_index, b.table_index]));
}

/** The name of the policer at an index (policer_details carries no index: asked for alone). */
async function policerName(f: Fixture, index: number): Promise<string | undefined> {
  const [p] = await f.client.dump(msg.policer_dump_v2, { policer_index: index });
  return p?.name;
}

describe("each VM port's own policer on its traffic to the services", () => {
  let f: Fixture;
  before(async () => {
    f = await openFixture();
    await apply(f, rawConfig(f));
  });
  after(() => closeFixture(f));

  it('gives every VM port a policer of its own, at the configured rate and burst, read back as applied', async () => {
    const p = await policers(f);
    assert.deepEqual(p.get(tags.vmRatePolicer('vm1')), { cir: 1000, cb: 65536 }, 'the defaults');
    assert.deepEqual(p.get(tags.vmRatePolicer('vm2')), { cir: 1000, cb: 65536 });
    const b = await bindings(f);
    const [one, two] = [await portIndex(f, 1), await portIndex(f, 2)];
    assert.ok(one !== undefined && two !== undefined);
    assert.ok(b.has(one) && b.has(two), 'both ports are bound');
    assert.notEqual(b.get(one), b.get(two), 'a table each');
    assert.deepEqual((await apply(f, rawConfig(f))).ops, [], 'a second pass changes nothing');
  });

  it('polices what a VM sends to the metadata, DNS and DHCP broadcast addresses with its own policer, and nothing else', async (t) => {
    const sim = f.target.sim;
    if (!sim) return t.skip('judged by the simulator’s model of ip4-policer-classify');
    for (const n of [1, 2]) {
      const swIfIndex = (await portIndex(f, n)) as number;
      const src = `10.0.0.${n + 4}`;
      for (const dst of [METADATA, DNS, '255.255.255.255']) {
        const v = sim.policerClassifyVerdict({ swIfIndex, src, dst });
        assert.equal(typeof v, 'number', `vm${n} → ${dst}: ${v}`);
        assert.equal(await policerName(f, v as number), tags.vmRatePolicer(`vm${n}`), `vm${n} → ${dst}`);
      }
      for (const dst of ['10.0.0.6', '10.0.1.9', '169.254.169.1', '8.8.8.8'])
        assert.equal(sim.policerClassifyVerdict({ swIfIndex, src, dst }), 'no-match', `vm${n} → ${dst}`);
    }
  });

  it('applies a new rate, takes a removed port’s policer away, and turns policing off at rate 0', async (t) => {
    await apply(f, rawConfig(f, { vmLimits: { rateKbps: 200, burstBytes: 3000 } }));
    let p = await policers(f);
    assert.deepEqual(p.get(tags.vmRatePolicer('vm1')), { cir: 200, cb: 3000 });
    assert.deepEqual(
      (await apply(f, rawConfig(f, { vmLimits: { rateKbps: 200, burstBytes: 3000 } }))).ops,
      [],
    );
    if (f.target.sim) {
      const swIfIndex = (await portIndex(f, 1)) as number;
      const v = f.target.sim.policerClassifyVerdict({ swIfIndex, src: '10.0.0.5', dst: METADATA });
      assert.equal(
        await policerName(f, v as number),
        tags.vmRatePolicer('vm1'),
        'the new policer is the one named',
      );
    }

    const two = (await portIndex(f, 2)) as number;
    await apply(f, rawConfig(f, { ports: [1] }));
    p = await policers(f);
    assert.equal(p.has(tags.vmRatePolicer('vm2')), false, "vm2's policer is gone with it");
    assert.equal((await bindings(f)).has(two), false, "and vm2's binding");

    const tablesBefore = (await f.client.call(msg.classify_table_ids, {})).ids;
    await apply(f, rawConfig(f, { ports: [1], vmLimits: { rateKbps: 0 } }));
    p = await policers(f);
    assert.equal(
      [...p.keys()].filter((n) => n.startsWith(tags.vmRatePolicer(''))).length,
      0,
      'no policer left',
    );
    assert.equal((await bindings(f)).size, 0, 'no binding left');
    const tablesAfter = (await f.client.call(msg.classify_table_ids, {})).ids;
    assert.equal(tablesAfter.length, tablesBefore.length - 1, "vm1's table is deleted");
    if (!f.target.sim) t.diagnostic('real VPP: bindings and tables checked through the API');
    await apply(f, rawConfig(f));
  });

  it("deletes a vppnet policer bound to nothing (a crash part way) and leaves others' policers alone", async () => {
    const config = {
      cir: 10,
      eir: 0,
      cb: 1500n,
      eb: 0n,
      rate_type: 0,
      round_type: 0,
      type: 0,
      color_aware: false,
      conform_action: { type: 1, dscp: 0 },
      exceed_action: { type: 0, dscp: 0 },
      violate_action: { type: 0, dscp: 0 },
    };
    await f.client.call(msg.policer_add, { name: tags.vmRatePolicer('vm9'), infos: config });
    await f.client.call(msg.policer_add, { name: 'operator-policer', infos: config });
    const { ops } = await apply(f, rawConfig(f));
    assert.deepEqual(ops, [`delete vm-rate-limit:vm9`]);
    const p = await policers(f);
    assert.equal(p.has(tags.vmRatePolicer('vm9')), false);
    assert.equal(p.has('operator-policer'), true);
    await f.client.call(msg.policer_add_del, { is_add: false, name: 'operator-policer', ...config });
  });
});

describe('the services turned off', () => {
  it('takes the policers, the NAT mappings and the short UDP idle time away, and a second pass changes nothing', async () => {
    const f = await openFixture();
    const { target, client } = f;
    try {
      await apply(f, rawConfig(f));
      if (target.sim) assert.equal(target.sim.state.aclUdpIdleSeconds, 30, 'the default');
      const off = { ...rawConfig(f), services: undefined };
      await apply(f, off);
      assert.deepEqual((await apply(f, off)).ops, []);
      assert.equal(
        [...(await policers(f)).keys()].filter((n) => n.startsWith(tags.vmRatePolicer(''))).length,
        0,
      );
      // The plugin is a shared global: left enabled, holding nothing of vppnet's.
      const statics = await client.dump(msg.nat44_ei_static_mapping_dump, {});
      assert.equal(statics.filter((m) => m.tag.startsWith('vppnet:')).length, 0, 'no NAT mapping left');
      if (target.sim) assert.equal(target.sim.state.aclUdpIdleSeconds, 600, "VPP's default again");
    } finally {
      await closeFixture(f);
    }
  });
});

describe('a VM rate limit that fails part way', () => {
  it('leaves neither its table nor its policer behind, and reports the failing message with its retval', async () => {
    const vpp = new RecordingVppApi({ state: 'ready' })
      .answerDump(msg.policer_classify_dump, () => [])
      .answer(msg.policer_add, () => ({ policer_index: 3 }))
      .answer(msg.classify_add_del_table, (input) => (input.is_add ? { new_table_index: 7 } : {}))
      .answer(msg.classify_add_del_session, () => ({ retval: -6 }));
    const interfaces = new InterfaceRegistry();
    interfaces.set('vppnet:vm:vm1', 5);
    const ctx = {
      client: vpp,
      interfaces,
      host: NO_HOST_LINKS,
      files: NO_HOST_FILES,
      acls: new AclRegistry(),
      macips: new AclRegistry(MACIP),
    };
    const resource = vmRateLimitDescriptor.resource({
      port: 'vm1',
      iface: 'vppnet:vm:vm1',
      rateKbps: 1000,
      burstBytes: 65536,
      destinations: [METADATA],
    });
    await assert.rejects(
      vmRateLimitDescriptor.create(ctx, resource),
      /classify_add_del_session: VPP returned -6/,
    );
    const tableOps = vpp
      .requestsFor(msg.classify_add_del_table)
      .map((r) => (r.is_add ? 'add' : `del ${String(r.table_index)}`));
    assert.deepEqual(tableOps, ['add', 'del 7']);
    const policerDeletes = vpp
      .requestsFor(msg.policer_add_del)
      .map((r) => `${String(r.is_add)} ${String(r.name)}`);
    assert.deepEqual(policerDeletes, [`false ${tags.vmRatePolicer('vm1')}`]);
    assert.equal(vpp.requestsFor(msg.policer_classify_set_interface).length, 0, 'never bound');
  });
});

describe('a VM port that inherits a binding', () => {
  it("unbinds the stale table its sw_if_index kept, from the pass's reading, before binding its own", async () => {
    const vpp = new RecordingVppApi({ state: 'ready' })
      .answer(msg.policer_add, () => ({ policer_index: 3 }))
      .answer(msg.classify_add_del_table, () => ({ new_table_index: 7 }));
    const interfaces = new InterfaceRegistry();
    interfaces.set('vppnet:vm:vm1', 5);
    const policerBindings = new Map([[5, 2]]);
    const ctx = {
      client: vpp,
      interfaces,
      host: NO_HOST_LINKS,
      files: NO_HOST_FILES,
      acls: new AclRegistry(),
      macips: new AclRegistry(MACIP),
      policerBindings,
    };
    const resource = vmRateLimitDescriptor.resource({
      port: 'vm1',
      iface: 'vppnet:vm:vm1',
      rateKbps: 1000,
      burstBytes: 65536,
      destinations: [METADATA],
    });
    await vmRateLimitDescriptor.create(ctx, resource);
    assert.equal(vpp.requestsFor(msg.policer_classify_dump).length, 0, 'no dump per port');
    assert.deepEqual(
      vpp
        .requestsFor(msg.policer_classify_set_interface)
        .map((r) => `${String(r.is_add)} ${String(r.sw_if_index)} ${String(r.ip4_table_index)}`),
      ['false 5 2', 'true 5 7'],
    );
    assert.deepEqual([...policerBindings], [[5, 7]], 'the reading follows what the pass did');
  });
});
