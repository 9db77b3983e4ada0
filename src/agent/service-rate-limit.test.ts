/**
 * Per-VM fairness on the service plane (services/vm-rate-limit.ts): the reconciler gives each VM
 * port a policer of its own on its traffic to the service addresses, over IPv4 and (services.ip6)
 * IPv6, through one policer. What VPP would do with a packet is judged by the simulator's model of
 * ip4- and ip6-policer-classify (policerClassifyVerdict); the same floods with real packets on a
 * real VPP are in test/integration/service-plane-traffic.test.ts and service-plane-ip6.test.ts.
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
import {
  vmRateLimitDescriptor,
  vmRateTable6Descriptor,
  type VmRateLimitValue,
} from '../services/vm-rate-limit.js';
import { formatIp6 } from '../net/ip-literal.js';
import type { Resource } from '../reconcile/resource.js';
import { RecordingVppApi } from '../vpp/client/testing/recording-vpp-api.js';
import { VppClient } from '../vpp/client/vpp-client.js';
import { msg } from '../vpp/messages/index.js';
import { memoryStore, reconcile } from './reconciler.js';
import { NO_HOST_LINKS } from '../../test/support/no-host-links.js';

const METADATA = '169.254.169.254';
const DNS = '169.254.169.53';
const METADATA6 = 'fd00:ec2::254';
const DNS6 = 'fd00:ec2::253';
const VM6 = (n: number): string => `2001:db8:a::${n + 4}`;

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

/**
 * `ip6`: the ports with an IPv6 address: vpc-a is then dual-stack (its ports take an address by
 * SLAAC unless given one), and the other ports are in vpc-b, IPv4 only; and whether services.ip6
 * is on (default: when any port has one).
 */
function rawConfig(
  f: Fixture,
  opts: {
    ports?: number[];
    vmLimits?: Record<string, number>;
    ip6?: { ports: number[]; services?: boolean };
  } = {},
): Record<string, unknown> {
  const ip6Ports = new Set(opts.ip6?.ports ?? []);
  const services6 = opts.ip6?.services ?? ip6Ports.size > 0;
  return {
    node: {
      name: 'hv1',
      underlay: { interface: f.uplink, address: '2001:db8::1/64', gateway: '2001:db8::2' },
      vhostUser: { directory: f.dir },
      srv6: { locator: 'fc00:1::/48' },
    },
    vpcs: [
      {
        name: 'vpc-a',
        id: 10,
        subnets: ['10.0.0.0/24', ...(ip6Ports.size > 0 ? ['2001:db8:a::/64'] : [])],
        gateway: '10.0.0.1',
      },
      ...(ip6Ports.size > 0
        ? [{ name: 'vpc-b', id: 20, subnets: ['10.0.1.0/24'], gateway: '10.0.1.1' }]
        : []),
    ],
    ports: (opts.ports ?? [1, 2]).map((n) => {
      const vpc = ip6Ports.size > 0 && !ip6Ports.has(n) ? 'b' : 'a';
      return {
        name: `vm${n}`,
        vpc: `vpc-${vpc}`,
        mac: `52:54:00:00:0c:0${n}`,
        ip: `10.0.${vpc === 'a' ? 0 : 1}.${n + 4}`,
        ...(ip6Ports.has(n) && { ip6: VM6(n) }),
        attach: { type: 'vhost-user', socket: path.join(f.dir, `vm${n}.sock`) },
      };
    }),
    remoteRoutes: [],
    services: {
      dnsAddress: DNS,
      dhcpServer: '169.254.169.103',
      ...(opts.vmLimits && { vmLimits: opts.vmLimits }),
      ...(services6 && { ip6: {} }),
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

/** The IPv4 (or L2) policer-classify bindings: sw_if_index → table. */
async function bindings(f: Fixture, type: 'ip4' | 'ip6' | 'l2' = 'ip4'): Promise<Map<number, number>> {
  const types = msg.policer_classify_table_t.values;
  const all = await f.client.dump(msg.policer_classify_dump, {
    type:
      type === 'ip4'
        ? types.POLICER_CLASSIFY_API_TABLE_IP4
        : type === 'ip6'
          ? types.POLICER_CLASSIFY_API_TABLE_IP6
          : types.POLICER_CLASSIFY_API_TABLE_L2,
    sw_if_index: 0,
  });
  return new Map(all.map((b) => [b.sw_if_index, b.table_index]));
}

/** A table's shape, and its sessions: the IPv6 source each matches (frame bytes 22..37) → policer. */
async function tableOf(
  f: Fixture,
  table: number,
): Promise<{
  skip: number;
  match: number;
  sessions: number;
  policers: number[];
  bySource6: Map<string, number>;
}> {
  const info = await f.client.call(msg.classify_table_info, { table_id: table });
  const sessions = await f.client.dump(msg.classify_session_dump, { table_id: table });
  return {
    skip: info.skip_n_vectors,
    match: info.match_n_vectors,
    sessions: sessions.length,
    policers: [...new Set(sessions.map((x) => x.hit_next_index))],
    bySource6: new Map(
      sessions
        .filter((x) => x.match.length >= 38)
        .map((x) => [formatIp6(Buffer.from(x.match), 22), x.hit_next_index] as const),
    ),
  };
}

/** The service BVI's sw_if_index. */
async function bviIndex(f: Fixture): Promise<number> {
  const all = await f.client.dump(msg.sw_interface_dump, {
    sw_if_index: 0xffffffff,
    name_filter_valid: false,
  });
  return all.find((i) => i.tag === tags.servicesBvi())?.sw_if_index as number;
}

/** A VM's IPv6 service address: nat66's external address for its IPv6 address in vpc-a. */
async function serviceAddress6(f: Fixture, n: number): Promise<string | undefined> {
  const all = await f.client.dump(msg.nat66_static_mapping_dump, {});
  return all.find((m) => m.local_ip_address === VM6(n) && m.vrf_id === 10)?.external_ip_address;
}

async function tableCount(f: Fixture): Promise<number> {
  return (await f.client.call(msg.classify_table_ids, {})).ids.length;
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

describe("each VM's policer over IPv6 too (services.ip6)", () => {
  let f: Fixture;
  /** vm1 and vm2 have IPv6 addresses in the dual-stack vpc-a; vm3, in the IPv4-only vpc-b, none. */
  const dual = (o: { services?: boolean; vmLimits?: Record<string, number> } = {}) =>
    rawConfig(f, {
      ports: [1, 2, 3],
      ip6: { ports: [1, 2], ...(o.services !== undefined && { services: o.services }) },
      ...(o.vmLimits && { vmLimits: o.vmLimits }),
    });
  /** vm n's IPv4 table's policer. */
  const policerOf = async (n: number): Promise<number> => {
    const sw = (await portIndex(f, n)) as number;
    const [p] = (await tableOf(f, (await bindings(f)).get(sw) as number)).policers;
    return p as number;
  };
  before(async () => {
    f = await openFixture();
    await apply(f, dual());
  });
  after(() => closeFixture(f));

  it("gives the service BVI's L2 input one table with a session per IPv6 VM naming that VM's policer; a second pass plans nothing", async () => {
    const bvi = await bviIndex(f);
    const l2 = await bindings(f, 'l2');
    assert.deepEqual([...l2.keys()], [bvi], 'one L2 table, on the BVI');
    const t = await tableOf(f, l2.get(bvi) as number);
    assert.deepEqual(
      { skip: t.skip, match: t.match, sessions: t.sessions },
      { skip: 0, match: 3, sessions: 2 },
      'the ethertype and the IPv6 source; vm1 and vm2',
    );
    for (const n of [1, 2]) {
      const source = await serviceAddress6(f, n);
      assert.ok(source !== undefined, `vm${n} has an IPv6 service address`);
      assert.equal(t.bySource6.get(source), await policerOf(n), `vm${n}: the policer of its IPv4 packets`);
      assert.equal(await policerName(f, await policerOf(n)), tags.vmRatePolicer(`vm${n}`));
    }
    assert.equal(t.policers.includes(await policerOf(3)), false, 'vm3 has no IPv6: no session');
    assert.equal(
      (await bindings(f, 'ip6')).size,
      0,
      'nothing on the ports’ IPv6 input (nat66 comes first there)',
    );
    assert.deepEqual((await apply(f, dual())).ops, [], 'a second pass changes nothing');
  });

  it('polices what a VM sends over IPv6 to the services with its own policer, and no tenant IPv6 traffic', async (t) => {
    const sim = f.target.sim;
    if (!sim) return t.skip('judged by the simulator’s model of l2-policer-classify');
    const bvi = await bviIndex(f);
    for (const n of [1, 2]) {
      const source = (await serviceAddress6(f, n)) as string;
      const policer = await policerOf(n);
      assert.equal(
        sim.policerClassifyVerdict({
          swIfIndex: (await portIndex(f, n)) as number,
          src: `10.0.0.${n + 4}`,
          dst: METADATA,
        }),
        policer,
      );
      // Past nat66 the VM's request carries its service address; the BVI sends it into the bridge.
      for (const dst of [METADATA6, DNS6])
        assert.equal(
          sim.policerClassifyVerdict({ swIfIndex: bvi, src: source, dst, dstPort: 53, l2Input: true }),
          policer,
          `vm${n} → ${dst}`,
        );
      // Before nat66, on the VM port: nothing classifies IPv6 (its tenant traffic is untouched).
      for (const dst of [METADATA6, VM6(3 - n), '2001:4860:4860::8888'])
        assert.equal(
          sim.policerClassifyVerdict({ swIfIndex: (await portIndex(f, n)) as number, src: VM6(n), dst }),
          'no-classify',
          `vm${n}'s port → ${dst}`,
        );
    }
    // What else the BVI sends into the bridge: from the gateway, link-local, other service addresses, IPv4.
    for (const src of ['fd00:ec2::1', 'fe80::1', 'fd00:ec2:0:ff::99', '2001:db8:a::5'])
      assert.equal(
        sim.policerClassifyVerdict({ swIfIndex: bvi, src, dst: METADATA6, l2Input: true }),
        'no-match',
        src,
      );
    assert.equal(
      sim.policerClassifyVerdict({ swIfIndex: bvi, src: '169.252.252.1', dst: METADATA, l2Input: true }),
      'no-match',
      'IPv4 from the BVI',
    );
  });

  it('takes the IPv6 table away when services.ip6 goes, and brings it back in place', async () => {
    const tables = await tableCount(f);
    const off = await apply(f, dual({ services: false }));
    assert.ok(off.ops.includes('delete vm-rate-table6'), off.ops.join(', '));
    assert.equal((await bindings(f, 'l2')).size, 0, 'no L2 binding left');
    assert.equal(await tableCount(f), tables - 1, 'the IPv6 table is deleted');
    assert.deepEqual((await policers(f)).get(tags.vmRatePolicer('vm1')), { cir: 1000, cb: 65536 });
    assert.deepEqual((await apply(f, dual({ services: false }))).ops, []);

    const p1 = await policerOf(1);
    const back = await apply(f, dual());
    assert.deepEqual(
      back.ops.filter((o) => o.includes('vm-rate')),
      ['create vm-rate-table6', 'update vm-rate-limit:vm1', 'update vm-rate-limit:vm2'],
    );
    const t = await tableOf(f, (await bindings(f, 'l2')).get(await bviIndex(f)) as number);
    assert.equal(
      t.bySource6.get((await serviceAddress6(f, 1)) as string),
      p1,
      'the same policer: its counters stay',
    );
    assert.deepEqual((await apply(f, dual())).ops, []);
  });

  it('a new rate: the IPv6 session names the new policer', async (t) => {
    const limits = { rateKbps: 300, burstBytes: 4000 };
    await apply(f, dual({ vmLimits: limits }));
    assert.deepEqual((await apply(f, dual({ vmLimits: limits }))).ops, []);
    const table6 = await tableOf(f, (await bindings(f, 'l2')).get(await bviIndex(f)) as number);
    const p1 = await policerOf(1);
    assert.equal(table6.bySource6.get((await serviceAddress6(f, 1)) as string), p1);
    assert.equal(table6.sessions, 2, 'no stale session');
    assert.deepEqual((await policers(f)).get(tags.vmRatePolicer('vm1')), { cir: 300, cb: 4000 });
    if (!f.target.sim) t.diagnostic('real VPP: the sessions read back through the API');
    await apply(f, dual());
  });

  it("unbinds another's L2 table from the BVI without deleting it, and binds its own", async () => {
    const bvi = await bviIndex(f);
    const ours = (await bindings(f, 'l2')).get(bvi) as number;
    const mask = Buffer.alloc(48);
    mask.fill(0xff, 6, 12);
    const table = (isAdd: boolean, index: number) =>
      f.client.call(msg.classify_add_del_table, {
        is_add: isAdd,
        del_chain: false,
        table_index: index,
        nbuckets: 2,
        memory_size: 64 << 10,
        skip_n_vectors: 0,
        match_n_vectors: 3,
        next_table_index: 0xffffffff,
        miss_next_index: 0xffffffff,
        current_data_flag: 0,
        current_data_offset: 0,
        mask,
      });
    const theirs = (await table(true, 0xffffffff)).new_table_index;
    const bind = (index: number, isAdd: boolean) =>
      f.client.call(msg.policer_classify_set_interface, {
        sw_if_index: bvi,
        ip4_table_index: 0xffffffff,
        ip6_table_index: 0xffffffff,
        l2_table_index: index,
        is_add: isAdd,
      });
    // Someone swaps the BVI's table for one of theirs (by source MAC).
    await bind(ours, false);
    await bind(theirs, true);
    try {
      const { ops } = await apply(f, dual());
      assert.deepEqual(ops.filter((o) => o.includes('vm-rate-table6')).sort(), [
        'create vm-rate-table6',
        'delete vm-rate-table6',
      ]);
      const now = (await bindings(f, 'l2')).get(bvi) as number;
      assert.notEqual(now, theirs, 'theirs is unbound');
      assert.ok((await f.client.call(msg.classify_table_ids, {})).ids.includes(theirs), 'and still there');
      const t = await tableOf(f, now);
      assert.equal(t.bySource6.get((await serviceAddress6(f, 1)) as string), await policerOf(1));
      assert.deepEqual((await apply(f, dual())).ops, []);
    } finally {
      await table(false, theirs);
      // Ours, unbound behind vppnet's back, is nobody's now.
      await table(false, ours).catch(() => undefined);
    }
  });
  it('makes the IPv6 table again when a session in it names no VM policer of vppnet, and the VMs’ sessions with it', async () => {
    const bvi = await bviIndex(f);
    const table = (await bindings(f, 'l2')).get(bvi) as number;
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
    const theirs = (await f.client.call(msg.policer_add, { name: 'operator-l2', infos: config }))
      .policer_index;
    const match = Buffer.alloc(48);
    match.writeUInt16BE(0x86dd, 12);
    Buffer.from('fd000ec200000000000000000000beef', 'hex').copy(match, 22);
    await f.client.call(msg.classify_add_del_session, {
      is_add: true,
      table_index: table,
      hit_next_index: theirs,
      opaque_index: 0xffffffff,
      advance: 0,
      action: 0,
      metadata: 0,
      match,
    });
    try {
      const { ops } = await apply(f, dual());
      assert.deepEqual(ops.filter((o) => o.includes('vm-rate')).sort(), [
        'create vm-rate-limit:vm1',
        'create vm-rate-limit:vm2',
        'create vm-rate-table6',
        'delete vm-rate-limit:vm1',
        'delete vm-rate-limit:vm2',
        'delete vm-rate-table6',
      ]);
      const t = await tableOf(f, (await bindings(f, 'l2')).get(bvi) as number);
      assert.equal(t.sessions, 2, 'only the VMs’ sessions');
      assert.equal(t.bySource6.get((await serviceAddress6(f, 1)) as string), await policerOf(1));
      assert.deepEqual((await apply(f, dual())).ops, []);
    } finally {
      await f.client.call(msg.policer_add_del, { is_add: false, name: 'operator-l2', ...config });
    }
  });
});

describe('an upgrade from the IPv4-only rate limit', () => {
  it('adds the IPv6 table and each VM’s session in place, keeping the IPv4 tables and policers; a second pass plans nothing', async (t) => {
    const f = await openFixture();
    try {
      // What an agent without IPv6 policing left: IPv4 tables alone, on ports that have IPv6.
      await apply(f, rawConfig(f, { ip6: { ports: [1, 2], services: false } }));
      const sw = (await portIndex(f, 1)) as number;
      const table4 = (await bindings(f)).get(sw) as number;
      const [policer] = (await tableOf(f, table4)).policers;
      const { ops } = await apply(f, rawConfig(f, { ip6: { ports: [1, 2] } }));
      assert.deepEqual(
        ops.filter((o) => o.includes('vm-rate')),
        ['create vm-rate-table6', 'update vm-rate-limit:vm1', 'update vm-rate-limit:vm2'],
      );
      assert.equal((await bindings(f)).get(sw), table4, 'the IPv4 table stays');
      const bvi = await bviIndex(f);
      const t6 = await tableOf(f, (await bindings(f, 'l2')).get(bvi) as number);
      const source = (await serviceAddress6(f, 1)) as string;
      assert.equal(t6.bySource6.get(source), policer, 'the IPv6 session names the same policer');
      assert.deepEqual((await apply(f, rawConfig(f, { ip6: { ports: [1, 2] } }))).ops, []);
      if (f.target.sim)
        assert.equal(
          f.target.sim.policerClassifyVerdict({ swIfIndex: bvi, src: source, dst: METADATA6, l2Input: true }),
          policer,
        );
      else t.diagnostic('real VPP: the bindings read back through the API');
    } finally {
      await closeFixture(f);
    }
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
      sources6: [],
    });
    await assert.rejects(
      vmRateLimitDescriptor.create(ctx, resource),
      /classify_add_del_session: VPP returned -6/,
    );
    assert.deepEqual(tableOps(vpp), ['add 1/2', 'del 7']);
    assert.deepEqual(policerOps(vpp), [`false ${tags.vmRatePolicer('vm1')}`]);
    assert.equal(vpp.requestsFor(msg.policer_classify_set_interface).length, 0, 'never bound');
  });

  it('with IPv6: a failing IPv6 session unbinds and removes the IPv4 table and the policer', async () => {
    const vpp = new RecordingVppApi({ state: 'ready' })
      .answer(msg.policer_add, () => ({ policer_index: 3 }))
      .answer(msg.classify_add_del_table, (input) => (input.is_add ? { new_table_index: 7 } : {}))
      .answer(msg.classify_add_del_session, (input) => ({ retval: input.table_index === 20 ? -6 : 0 }));
    const ctx = recordingContext(vpp, new Map([[9, { ip4: undefined, l2: 20 }]]));
    await assert.rejects(
      vmRateLimitDescriptor.create(ctx, limit({ sources6: ['fd00:ec2:0:ff::1'] })),
      /classify_add_del_session: VPP returned -6/,
    );
    assert.deepEqual(sessionOps(vpp), ['add 7 3', 'add 20 3']);
    assert.deepEqual(bindOps(vpp), ['true 5 7 - -', 'false 5 7 - -']);
    assert.deepEqual(tableOps(vpp), ['add 1/2', 'del 7']);
    assert.deepEqual(policerOps(vpp), [`false ${tags.vmRatePolicer('vm1')}`]);
    assert.deepEqual([...(ctx.policerBindings ?? [])], [[9, { ip4: undefined, l2: 20 }]]);
  });

  it('adding the IPv6 session in place: a failure leaves the rest as it was', async () => {
    const vpp = new RecordingVppApi({ state: 'ready' }).answer(msg.classify_add_del_session, () => ({
      retval: -6,
    }));
    const ctx = recordingContext(
      vpp,
      new Map([
        [5, { ip4: 7, l2: undefined }],
        [9, { ip4: undefined, l2: 20 }],
      ]),
    );
    const found = { swIfIndex: 5, table: 7, policer: 3, table6: undefined };
    await assert.rejects(
      (vmRateLimitDescriptor.update as NonNullable<typeof vmRateLimitDescriptor.update>)(
        ctx,
        limit({ sources6: ['fd00:ec2:0:ff::1'] }),
        limit({ found }),
      ),
      /classify_add_del_session: VPP returned -6/,
    );
    assert.deepEqual(sessionOps(vpp), ['add 20 3']);
    assert.deepEqual([tableOps(vpp), policerOps(vpp), bindOps(vpp)], [[], [], []], 'the policer stays');
  });

  it('a new IPv6 service address in place: the old session goes, the new one names the same policer', async () => {
    const vpp = new RecordingVppApi({ state: 'ready' });
    const ctx = recordingContext(vpp, new Map([[9, { ip4: undefined, l2: 20 }]]));
    const found = { swIfIndex: 5, table: 7, policer: 3, table6: 20 };
    await (vmRateLimitDescriptor.update as NonNullable<typeof vmRateLimitDescriptor.update>)(
      ctx,
      limit({ sources6: ['fd00:ec2:0:ff::2'] }),
      limit({ sources6: ['fd00:ec2:0:ff::1'], found }),
    );
    assert.deepEqual(sessionOps(vpp), ['del 20 0', 'add 20 3']);
    assert.deepEqual([tableOps(vpp), policerOps(vpp), bindOps(vpp)], [[], [], []]);
  });

  it('the IPv6 table: an inherited L2 binding on the BVI is unbound first; a failing binding removes the table', async () => {
    const vpp = new RecordingVppApi({ state: 'ready' })
      .answer(msg.classify_add_del_table, (input) => (input.is_add ? { new_table_index: 21 } : {}))
      .answer(msg.policer_classify_set_interface, (input) => ({ retval: input.is_add ? -65 : 0 }));
    const ctx = recordingContext(vpp, new Map([[9, { ip4: undefined, l2: 4 }]]));
    const table6 = vmRateTable6Descriptor.resource({
      iface: tags.servicesBvi(),
      buckets: 128,
      memory: 196608,
      strays: 0,
    });
    await assert.rejects(vmRateTable6Descriptor.create(ctx, table6), /VPP returned -65/);
    assert.deepEqual(bindOps(vpp), ['false 9 - - 4', 'true 9 - - 21']);
    assert.deepEqual(tableOps(vpp), ['add 0/3', 'del 21']);
    assert.equal(vpp.requestsFor(msg.classify_add_del_table)[0]?.nbuckets, 128);
  });
});

describe('a VM port that inherits a binding', () => {
  it("unbinds the stale table its sw_if_index kept, from the pass's reading, before binding its own", async () => {
    const vpp = new RecordingVppApi({ state: 'ready' })
      .answer(msg.policer_add, () => ({ policer_index: 3 }))
      .answer(msg.classify_add_del_table, () => ({ new_table_index: 7 }));
    const policerBindings = new Map([
      [5, { ip4: 2, l2: undefined }],
      [9, { ip4: undefined, l2: 20 }],
    ]);
    const ctx = recordingContext(vpp, policerBindings);
    await vmRateLimitDescriptor.create(ctx, limit({ sources6: ['fd00:ec2:0:ff::1'] }));
    assert.equal(vpp.requestsFor(msg.policer_classify_dump).length, 0, 'no dump per port');
    assert.deepEqual(bindOps(vpp), ['false 5 2 - -', 'true 5 7 - -']);
    assert.deepEqual(sessionOps(vpp), ['add 7 3', 'add 20 3'], 'the IPv6 session in the BVI’s table');
    assert.deepEqual(
      [...policerBindings].sort(([a], [b]) => a - b),
      [
        [5, { ip4: 7, l2: undefined }],
        [9, { ip4: undefined, l2: 20 }],
      ],
      'the reading follows what the pass did',
    );
  });
});

/** vm1's port is sw_if_index 5, the service BVI 9. */
function recordingContext(
  vpp: RecordingVppApi,
  policerBindings?: Map<number, { ip4: number | undefined; l2: number | undefined }>,
) {
  const interfaces = new InterfaceRegistry();
  interfaces.set('vppnet:vm:vm1', 5);
  interfaces.set(tags.servicesBvi(), 9);
  return {
    client: vpp,
    interfaces,
    host: NO_HOST_LINKS,
    files: NO_HOST_FILES,
    acls: new AclRegistry(),
    macips: new AclRegistry(MACIP),
    ...(policerBindings && { policerBindings }),
  };
}

function limit(o: Partial<VmRateLimitValue> = {}): Resource<VmRateLimitValue> {
  return vmRateLimitDescriptor.resource({
    port: 'vm1',
    iface: 'vppnet:vm:vm1',
    rateKbps: 1000,
    burstBytes: 65536,
    destinations: [METADATA],
    sources6: [],
    ...o,
  });
}

/** classify_add_del_session requests: "add|del table policer". */
const sessionOps = (vpp: RecordingVppApi): string[] =>
  vpp
    .requestsFor(msg.classify_add_del_session)
    .map((r) => `${r.is_add ? 'add' : 'del'} ${String(r.table_index)} ${String(r.hit_next_index)}`);
/** classify_add_del_table requests: "add skip/match" or "del index". */
const tableOps = (vpp: RecordingVppApi): string[] =>
  vpp
    .requestsFor(msg.classify_add_del_table)
    .map((r) =>
      r.is_add
        ? `add ${String(r.skip_n_vectors)}/${String(r.match_n_vectors)}`
        : `del ${String(r.table_index)}`,
    );
const policerOps = (vpp: RecordingVppApi): string[] =>
  vpp.requestsFor(msg.policer_add_del).map((r) => `${String(r.is_add)} ${String(r.name)}`);
/** policer_classify_set_interface requests: "is_add sw_if_index ip4 ip6 l2" (- for ~0). */
const bindOps = (vpp: RecordingVppApi): string[] =>
  vpp
    .requestsFor(msg.policer_classify_set_interface)
    .map((r) =>
      [r.is_add, r.sw_if_index, r.ip4_table_index, r.ip6_table_index, r.l2_table_index]
        .map((x) => (x === 0xffffffff ? '-' : String(x)))
        .join(' '),
    );
