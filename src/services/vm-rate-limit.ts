/**
 * Per-VM fairness on the service plane: each VM's packets to the services pass a policer of that
 * VM's own, so one VM flooding them cannot take the pods' CPU or the bridge from the others. VPP's
 * policer-classify feature does it (verified on VPP 26.06, docs/security.md); a session's hit
 * sends the packet through the policer it names (conform: on; exceed: dropped and counted, per
 * policer, in `show policer`), a miss passes untouched. One policer per VM for both families: its
 * share is one budget, and its drops one count.
 *
 * - IPv4: on the VM port's input, after the uRPF source check, ip4-policer-classify looks the
 *   packet's destination up in a classifier table of the port's own, with a session per service
 *   address (metadata, DNS, and 255.255.255.255 for DHCP); the VM's tenant traffic misses.
 * - IPv6 (services.ip6): at the service BVI. Past nat66 (on the VPC's services loopback,
 *   ip6-services.ts) a VM's packet to the services carries the VM's own IPv6 service address as
 *   its source, and every one leaves table 0 through the service BVI into the bridge: one table
 *   for the node there serves every VPC (it was placed there while nat66 ran on the VM ports,
 *   where nat66-in2out hands its packets to ip6-lookup ahead of ip6-policer-classify, so a table
 *   on the port saw none: a flood at 11,862 pps reached the DNS pod with 0 drops, VPP 26.06).
 *   l2-policer-classify on the BVI's L2
 *   input (the BVI's output enters l2-input as received on the BVI) looks that source up in one
 *   table for the node (vmRateTable6Descriptor), with a session per VM naming the VM's policer.
 *   Everything else the BVI sends into the bridge (IPv4, neighbour discovery, from the gateway)
 *   misses. That node counts the frame: an IPv6 packet costs its VM its IP bytes plus the 14 of
 *   its Ethernet header.
 *
 * One kind holds a VM's VPP objects (the policer, its IPv4 table with its sessions, the binding,
 * its session in the IPv6 table): they exist only together, and a session names its policer by an
 * index VPP picks, so a policer made again would leave sessions naming a stale one. Created policer
 * → IPv4 table → binding → IPv6 session (a failure part way removes what was made), deleted the
 * other way round. A change of the IPv6 session alone (services.ip6 turned on, an upgrade from the
 * IPv4-only shape, a new service address) is made in place, keeping the policer and its counters;
 * any other change replaces the whole.
 *
 * The rate is in kbit/s of IP bytes: VPP's "pps" rate type is a byte rate at 256-byte packets
 * (xlate.c qos_convert_pps_to_kbps) applied to real packet lengths, so small DNS queries would
 * pass at several times the "pps" given. Bytes say what is enforced.
 *
 * The policer is vm-rate-policer.ts, the classifier tables, sessions and bindings
 * vm-rate-classify.ts.
 */
import type { AgentConfig } from '../config/model.js';
import type { PolicerClassifyReading } from './policer-classify-reading.js';
import { keys, tags, vmPortOfRatePolicer } from '../dataplane/keys.js';
import { portInterfaceName } from '../dataplane/names.js';
import type { InterfaceRegistry } from '../dataplane/interface-registry.js';
import { defineKind } from '../reconcile/kind.js';
import type { Resource } from '../reconcile/resource.js';
import { formatIp6, writeIp6Literal } from '../net/ip-literal.js';
import { msg } from '../vpp/messages/index.js';
import { NO_INDEX } from '../vpp/messages/sentinels.js';
import type { ServicesContext } from './context.js';
import { serviceAddress6 } from './ip6-services.js';
import {
  addSessions6,
  clearBinding,
  deleteSessions6,
  deleteTable,
  destinationOf,
  IP4_DST,
  ip4Match,
  L2_IP6_SRC,
  session,
  setBinding,
  shapeOk,
  sourceOf,
  table6Size,
  tableRequest,
} from './vm-rate-classify.js';
import { ACTION, addPolicer, deletePolicer, POLICER_TYPE, RATE } from './vm-rate-policer.js';

export interface VmRateLimitValue {
  readonly port: string;
  readonly iface: string;
  readonly rateKbps: number;
  readonly burstBytes: number;
  /** The IPv4 destinations policed on the port, sorted. */
  readonly destinations: readonly string[];
  /**
   * The VM's IPv6 service address (none: not policed over IPv6): its session in the bridge's IPv6
   * rate table. As read back, every address whose session names this VM's policer.
   */
  readonly sources6: readonly string[];
  /** As read back: where VPP holds it (not compared). */
  readonly found?: VmRateLimitFound;
}

export interface VmRateLimitFound {
  readonly swIfIndex: number | undefined;
  /** The IPv4 table bound to the port. */
  readonly table: number | undefined;
  /** The index of the policer the sessions name. */
  readonly policer: number | undefined;
  /** The IPv6 rate table holding `sources6`' sessions. */
  readonly table6: number | undefined;
}

/** The service BVI's L2 policer-classify table: one per node, a session per VM with IPv6. */
export interface VmRateTable6Value {
  /** The service BVI. */
  readonly iface: string;
  /** nbuckets, sized for every VM of the node; -1 as read back: not in vppnet's shape. */
  readonly buckets: number;
  /** Bytes of heap the table's sessions get (VPP does not report it: not compared). */
  readonly memory: number;
  /**
   * Sessions naming none of vppnet's VM policers (a policer deleted under them, another's) or
   * matching no IPv6 source: none wanted, so a table with any is made again (and the VMs'
   * sessions with it).
   */
  readonly strays: number;
  /** As read back: the table, and whether it is vppnet's (another's is unbound, not deleted). */
  readonly found?: { readonly table: number; readonly own: boolean };
}

/** The broadcast DHCP DISCOVER and REQUEST go to (the relay takes them on the VM's port). */
export const DHCP_BROADCAST = '255.255.255.255';

/**
 * The per-VM policers of a configuration (none when the rate is 0 or there are no services), and
 * with services.ip6 the bridge's IPv6 rate table. `addresses`: VM port name → its (IPv4) service
 * address, whose host number its IPv6 one takes (ip6-services.ts).
 */
export function desiredVmRateLimits(config: AgentConfig, addresses: ReadonlyMap<string, string>): Resource[] {
  const s = config.services;
  if (!s || s.vmLimits.rateKbps === 0) return [];
  const out: Resource[] = [];
  const destinations = [
    s.metadataAddress,
    ...(s.dnsAddress === undefined ? [] : [s.dnsAddress]),
    ...(s.dhcpServer === undefined ? [] : [DHCP_BROADCAST]),
  ].sort();
  // Over IPv6, the VMs nat66 maps (ip6-services.ts): a port with an IPv6 address in a VPC with
  // an IPv6 subnet and a service address, with services.ip6 on.
  const ip6 = s.ip6;
  const ip6Vpcs = new Set(config.vpcs.filter((v) => v.subnets6.length > 0).map((v) => v.name));
  const sources6 = (port: AgentConfig['ports'][number]): string[] => {
    const address4 = addresses.get(port.name);
    if (!ip6 || port.ip6 === undefined || !ip6Vpcs.has(port.vpc) || address4 === undefined) return [];
    return [canonical6(serviceAddress6(s, ip6, address4))];
  };
  if (ip6 && config.ports.some((p) => sources6(p).length > 0))
    out.push(
      vmRateTable6Descriptor.resource({
        iface: tags.servicesBvi(),
        ...table6Size(2 ** (32 - s.vmAddressRange.len)),
        strays: 0,
      }),
    );
  for (const port of config.ports)
    out.push(
      vmRateLimitDescriptor.resource({
        port: port.name,
        iface: portInterfaceName(port),
        rateKbps: s.vmLimits.rateKbps,
        burstBytes: s.vmLimits.burstBytes,
        destinations,
        sources6: sources6(port),
      }),
    );
  return out;
}

function canonical6(address: string): string {
  const buf = Buffer.alloc(16);
  if (!writeIp6Literal(address, buf, 0))
    throw new TypeError(`not an IPv6 address: ${JSON.stringify(address)}`);
  return formatIp6(buf, 0);
}

/**
 * vppnet's per-VM policing as VPP holds it: each VM port's binding whose sessions all name one
 * of vppnet's VM policers, in the shape vppnet writes (anything else on such a binding makes it
 * differ, so it is replaced), with the sources of the IPv6 table's sessions naming the same
 * policer; the IPv6 table bound to the service BVI (its sessions hold for the VMs); and
 * vppnet's policers bound to nothing (left by a crash part way).
 */
export function actualVmRateLimits(
  reading: PolicerClassifyReading,
  interfaces: InterfaceRegistry,
): Resource[] {
  const out: Resource[] = [];
  const policerName = (index: number): string | undefined => reading.policersByIndex.get(index)?.name;

  // The BVI's IPv6 table: its sessions by the VM policer they name.
  const bvi = tags.servicesBvi();
  const bviIndex = interfaces.has(bvi) ? interfaces.index(bvi) : undefined;
  const l2 = reading.bindingsL2.find((b) => b.swIfIndex === bviIndex);
  const sources6 = new Map<string, { index: number; sources: string[] }>();
  if (l2) {
    const own = shapeOk(L2_IP6_SRC, l2);
    let strays = 0;
    if (own)
      for (const s of l2.sessions) {
        const name = policerName(s.hit_next_index);
        const source = sourceOf(s.match);
        if (name === undefined || vmPortOfRatePolicer(name) === undefined || source === '?') {
          strays++;
          continue;
        }
        const entry = sources6.get(name) ?? { index: s.hit_next_index, sources: [] };
        entry.sources.push(source);
        sources6.set(name, entry);
      }
    out.push(
      vmRateTable6Descriptor.resource({
        iface: bvi,
        buckets: own ? (l2.info?.nbuckets ?? -1) : -1,
        memory: 0,
        strays,
        found: { table: l2.table, own },
      }),
    );
  }
  const table6 = l2 && shapeOk(L2_IP6_SRC, l2) ? l2.table : undefined;

  const seen = new Set<string>();
  for (const b of reading.bindings) {
    const names = new Set(b.sessions.map((s) => policerName(s.hit_next_index)));
    const [name] = names;
    const port = names.size === 1 && name !== undefined ? vmPortOfRatePolicer(name) : undefined;
    const iface = interfaces.nameOf(b.swIfIndex);
    if (port === undefined || name === undefined || iface === undefined) continue;
    seen.add(name);
    const policer = b.sessions[0]?.hit_next_index ?? NO_INDEX;
    const p = reading.policersByIndex.get(policer);
    const ok =
      shapeOk(IP4_DST, b) &&
      p !== undefined &&
      p.rate_type === RATE.SSE2_QOS_RATE_API_KBPS &&
      p.type === POLICER_TYPE.SSE2_QOS_POLICER_TYPE_API_1R2C &&
      p.conform_action.type === ACTION.SSE2_QOS_ACTION_API_TRANSMIT &&
      p.exceed_action.type === ACTION.SSE2_QOS_ACTION_API_DROP;
    out.push(
      vmRateLimitDescriptor.resource({
        port,
        iface,
        rateKbps: ok ? p.cir : -1,
        burstBytes: p === undefined ? -1 : Number(p.cb),
        destinations: b.sessions.map((s) => destinationOf(s.match)).sort(),
        sources6: [...(sources6.get(name)?.sources ?? [])].sort(),
        found: { swIfIndex: b.swIfIndex, table: b.table, policer, table6 },
      }),
    );
  }
  // vppnet's policers bound to no port (a crash part way), an IPv6 session at most.
  for (const name of new Set([...reading.policerNames, ...sources6.keys()])) {
    const port = vmPortOfRatePolicer(name);
    if (port === undefined || seen.has(name)) continue;
    const six = sources6.get(name);
    out.push(
      vmRateLimitDescriptor.resource({
        port,
        iface: '',
        rateKbps: -1,
        burstBytes: -1,
        destinations: [],
        sources6: [...(six?.sources ?? [])].sort(),
        found: { swIfIndex: undefined, table: undefined, policer: six?.index, table6 },
      }),
    );
  }
  return out;
}

async function create(ctx: ServicesContext, v: VmRateLimitValue): Promise<void> {
  const swIfIndex = ctx.interfaces.index(v.iface);
  await clearBinding(ctx, swIfIndex, 'ip4');
  const policer = await addPolicer(ctx, v);
  let table: number | undefined;
  let bound = false;
  try {
    table = (await ctx.client.call(msg.classify_add_del_table, tableRequest(IP4_DST, true, NO_INDEX)))
      .new_table_index;
    const created = table;
    await Promise.all(
      v.destinations.map((d) =>
        ctx.client.call(msg.classify_add_del_session, session(created, policer, ip4Match(d), true)),
      ),
    );
    await setBinding(ctx, swIfIndex, { ip4: table }, true);
    bound = true;
    await addSessions6(ctx, v.sources6, policer);
  } catch (err) {
    // Nothing of a half-made limit stays behind; the error that stopped it is the one reported.
    if (bound && table !== undefined)
      await setBinding(ctx, swIfIndex, { ip4: table }, false).catch(() => undefined);
    if (table !== undefined) await deleteTable(ctx, IP4_DST, table).catch(() => undefined);
    await deletePolicer(ctx, v.port).catch(() => undefined);
    throw err;
  }
}

async function remove(ctx: ServicesContext, v: VmRateLimitValue): Promise<void> {
  const { table, table6 } = v.found ?? {};
  // Its IPv6 sessions first: they name the policer by index.
  if (table6 !== undefined) await deleteSessions6(ctx, table6, v.sources6);
  // An interface that is gone cannot be named (VPP checks the sw_if_index first).
  if (table !== undefined && v.iface !== '' && ctx.interfaces.has(v.iface))
    await setBinding(ctx, ctx.interfaces.index(v.iface), { ip4: table }, false);
  if (table !== undefined) await deleteTable(ctx, IP4_DST, table);
  await deletePolicer(ctx, v.port);
}

const sameList = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((d, i) => d === b[i]);

/** Whether two values differ in their IPv6 sessions alone. */
function sameBut6(a: VmRateLimitValue, b: VmRateLimitValue): boolean {
  return (
    a.port === b.port &&
    a.iface === b.iface &&
    a.rateKbps === b.rateKbps &&
    a.burstBytes === b.burstBytes &&
    sameList(a.destinations, b.destinations)
  );
}

/** The classifier plugin's tables and bindings (the policer plugin's too, for a VM's limit). */
const TABLE6_SENDS = [
  msg.classify_add_del_table,
  msg.policer_classify_set_interface,
  msg.policer_classify_dump,
];
const RATE_LIMIT_SENDS = [
  ...TABLE6_SENDS,
  msg.classify_add_del_session,
  msg.policer_add,
  msg.policer_add_del,
];

export const vmRateLimitDescriptor = defineKind<VmRateLimitValue, ServicesContext>({
  kind: 'vm-rate-limit',
  messages: { optional: RATE_LIMIT_SENDS },
  key: (v) => keys.vmRateLimit(v.port),
  // Its IPv6 sessions live in the bridge's table: a table made again takes them with it.
  deps: (v) => [
    ...(v.iface === '' ? [] : [keys.interface(v.iface)]),
    ...(v.sources6.length > 0 ? [keys.vmRateTable6()] : []),
  ],
  equivalent: (a, b) => sameBut6(a, b) && sameList(a.sources6, b.sources6),
  create: (ctx, { value }) => create(ctx, value),
  delete: (ctx, { value }) => remove(ctx, value),
  async update(ctx, { value: want }, { value: have }) {
    const found = have.found;
    if (
      sameBut6(want, have) &&
      found?.table !== undefined &&
      found.policer !== undefined &&
      ctx.interfaces.has(want.iface) &&
      ctx.interfaces.index(want.iface) === found.swIfIndex
    ) {
      // In place: the IPv4 side and the policer (and its counters) stay.
      const gone = have.sources6.filter((s) => !want.sources6.includes(s));
      if (gone.length > 0 && found.table6 !== undefined) await deleteSessions6(ctx, found.table6, gone);
      await addSessions6(
        ctx,
        want.sources6.filter((s) => !have.sources6.includes(s)),
        found.policer,
      );
      return;
    }
    await remove(ctx, have);
    await create(ctx, want);
  },
});

export const vmRateTable6Descriptor = defineKind<VmRateTable6Value, ServicesContext>({
  kind: 'vm-rate-table6',
  messages: { optional: TABLE6_SENDS },
  key: () => keys.vmRateTable6(),
  // After the BVI's bridge membership, and gone with it: leaving the bridge (set_int_l2_mode L3)
  // resets the BVI's l2-input feature bitmap, and the binding would stay without its feature.
  deps: (v) => [keys.interface(v.iface), keys.bridgePort(v.iface)],
  equivalent: (a, b) => a.iface === b.iface && a.buckets === b.buckets && a.strays === b.strays,
  async create(ctx, { value: v }) {
    const swIfIndex = ctx.interfaces.index(v.iface);
    await clearBinding(ctx, swIfIndex, 'l2');
    const table = (
      await ctx.client.call(msg.classify_add_del_table, tableRequest(L2_IP6_SRC, true, NO_INDEX, v))
    ).new_table_index;
    try {
      await setBinding(ctx, swIfIndex, { l2: table }, true);
    } catch (err) {
      await deleteTable(ctx, L2_IP6_SRC, table).catch(() => undefined);
      throw err;
    }
  },
  async delete(ctx, { value: v }) {
    const found = v.found;
    if (!found) return;
    if (ctx.interfaces.has(v.iface))
      await setBinding(ctx, ctx.interfaces.index(v.iface), { l2: found.table }, false);
    if (found.own) await deleteTable(ctx, L2_IP6_SRC, found.table);
  },
});
