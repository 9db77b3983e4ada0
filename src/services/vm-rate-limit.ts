/**
 * Per-VM fairness on the service plane: each VM port's packets to the service addresses (metadata,
 * DNS, and 255.255.255.255 for DHCP) pass a policer of that VM's own, so one VM flooding them
 * cannot take the pods' CPU or the bridge from the others. VPP's policer-classify feature does it
 * (verified on VPP 26.06, docs/security.md): on the VM port's IPv4 input, after the uRPF source
 * check, ip4-policer-classify looks the packet's destination up in a classifier table of the port's
 * own; a hit sends it through the session's policer (conform: on; exceed: dropped and counted, per
 * policer, in `show policer`); a miss (the VM's tenant traffic) passes untouched.
 *
 * One kind holds the three VPP objects (the policer, the table with its sessions, the binding):
 * they exist only together, and a session names its policer by an index VPP picks, so a policer
 * made again would leave the table naming a stale one. Created policer → table → sessions →
 * binding (a failure part way removes what was made), deleted the other way round.
 *
 * The rate is in kbit/s of IP bytes: VPP's "pps" rate type is a byte rate at 256-byte packets
 * (xlate.c qos_convert_pps_to_kbps) applied to real packet lengths, so small DNS queries would
 * pass at several times the "pps" given. Bytes say what is enforced.
 */
import type { AgentConfig } from '../config/model.js';
import type { PolicerClassifyReading } from '../dataplane/policer-classify-reading.js';
import { keys, tags, vmPortOfRatePolicer } from '../dataplane/keys.js';
import { portInterfaceName } from '../dataplane/names.js';
import type { InterfaceRegistry } from '../dataplane/interface-registry.js';
import { defineKind } from '../reconcile/kind.js';
import type { Resource } from '../reconcile/resource.js';
import { intToIp4, ip4ToInt } from '../net/ip.js';
import { VppRetvalError } from '../vpp/client/retval-error.js';
import { msg } from '../vpp/messages/index.js';
import { NO_INDEX } from '../vpp/messages/sentinels.js';
import type { ServicesContext } from './context.js';

export interface VmRateLimitValue {
  readonly port: string;
  readonly iface: string;
  readonly rateKbps: number;
  readonly burstBytes: number;
  /** The IPv4 destinations policed, sorted. */
  readonly destinations: readonly string[];
  /** As read back: where VPP holds it (not compared). */
  readonly found?: { readonly table: number | undefined; readonly swIfIndex: number | undefined };
}

/** The broadcast DHCP DISCOVER and REQUEST go to (the relay takes them on the VM's port). */
export const DHCP_BROADCAST = '255.255.255.255';

/**
 * The classifier's view: ip4-policer-classify matches from the Ethernet header. One skipped
 * 16-byte vector, two matched: the IPv4 destination is at bytes 30..33 of the frame, 14..17 of the
 * matched vectors.
 */
const SKIP_VECTORS = 1;
const MATCH_VECTORS = 2;
const DST_OFFSET = 30;
const MATCH_DST_OFFSET = DST_OFFSET - SKIP_VECTORS * 16;
/** A handful of sessions: the smallest table VPP makes (2 buckets) in a 64 KiB heap of its own. */
const TABLE_BUCKETS = 2;
const TABLE_MEMORY = 64 << 10;

const RATE = msg.sse2_qos_rate_type_t.values;
const POLICER_TYPE = msg.sse2_qos_policer_type_t.values;
const ACTION = msg.sse2_qos_action_type_t.values;
const ROUND = msg.sse2_qos_round_type_t.values;
const IP4 = msg.policer_classify_table_t.values.POLICER_CLASSIFY_API_TABLE_IP4;
/** vnet error VALUE_EXIST: a policer of that name is there already. */
const VALUE_EXIST = -81;

function tableMask(): Buffer {
  const mask = Buffer.alloc(MATCH_VECTORS * 16);
  mask.writeUInt32BE(0xffffffff, MATCH_DST_OFFSET);
  return mask;
}

function sessionMatch(destination: string): Buffer {
  const match = Buffer.alloc((SKIP_VECTORS + MATCH_VECTORS) * 16);
  match.writeUInt32BE(ip4ToInt(destination), DST_OFFSET);
  return match;
}

/** The destination a session matches (its key, without the skipped vector). */
function destinationOf(key: Uint8Array): string {
  if (key.length < MATCH_DST_OFFSET + 4) return '?';
  return intToIp4(Buffer.from(key.buffer, key.byteOffset, key.length).readUInt32BE(MATCH_DST_OFFSET));
}

/** The per-VM policers of a configuration (none when the rate is 0 or there are no services). */
export function desiredVmRateLimits(config: AgentConfig): Resource<VmRateLimitValue>[] {
  const s = config.services;
  if (!s || s.vmLimits.rateKbps === 0) return [];
  const destinations = [
    s.metadataAddress,
    ...(s.dnsAddress === undefined ? [] : [s.dnsAddress]),
    ...(s.dhcpServer === undefined ? [] : [DHCP_BROADCAST]),
  ].sort();
  return config.ports.map((port) =>
    vmRateLimitDescriptor.resource({
      port: port.name,
      iface: portInterfaceName(port),
      rateKbps: s.vmLimits.rateKbps,
      burstBytes: s.vmLimits.burstBytes,
      destinations,
    }),
  );
}

/**
 * vppnet's per-VM policing as VPP holds it: each binding whose sessions all name one of vppnet's
 * VM policers, in the shape vppnet writes (anything else on such a binding makes it differ, so
 * it is replaced), and vppnet's policers bound to nothing (left by a crash part way).
 */
export function actualVmRateLimits(
  reading: PolicerClassifyReading,
  interfaces: InterfaceRegistry,
): Resource<VmRateLimitValue>[] {
  const out: Resource<VmRateLimitValue>[] = [];
  const bound = new Set<string>();
  for (const b of reading.bindings) {
    const policers = new Set(b.sessions.map((s) => reading.policersByIndex.get(s.hit_next_index)?.name));
    const [name] = policers;
    const port = policers.size === 1 && name !== undefined ? vmPortOfRatePolicer(name) : undefined;
    const iface = interfaces.nameOf(b.swIfIndex);
    if (port === undefined || name === undefined || iface === undefined) continue;
    bound.add(name);
    const p = reading.policersByIndex.get(b.sessions[0]?.hit_next_index ?? NO_INDEX);
    const info = b.info;
    const shapeOk =
      info !== undefined &&
      info.skip_n_vectors === SKIP_VECTORS &&
      info.match_n_vectors === MATCH_VECTORS &&
      Buffer.from(info.mask).equals(tableMask()) &&
      p !== undefined &&
      p.rate_type === RATE.SSE2_QOS_RATE_API_KBPS &&
      p.type === POLICER_TYPE.SSE2_QOS_POLICER_TYPE_API_1R2C &&
      p.conform_action.type === ACTION.SSE2_QOS_ACTION_API_TRANSMIT &&
      p.exceed_action.type === ACTION.SSE2_QOS_ACTION_API_DROP;
    const destinations = b.sessions.map((s) => destinationOf(s.match)).sort();
    out.push(
      vmRateLimitDescriptor.resource({
        port,
        iface,
        rateKbps: shapeOk ? p.cir : -1,
        burstBytes: p === undefined ? -1 : Number(p.cb),
        destinations,
        found: { table: b.table, swIfIndex: b.swIfIndex },
      }),
    );
  }
  for (const name of reading.policerNames) {
    const port = vmPortOfRatePolicer(name);
    if (port === undefined || bound.has(name)) continue;
    out.push(
      vmRateLimitDescriptor.resource({
        port,
        iface: '',
        rateKbps: -1,
        burstBytes: -1,
        destinations: [],
        found: { table: undefined, swIfIndex: undefined },
      }),
    );
  }
  return out;
}

async function addPolicer(ctx: ServicesContext, v: VmRateLimitValue): Promise<number> {
  const request = {
    name: tags.vmRatePolicer(v.port),
    infos: {
      cir: v.rateKbps,
      eir: 0,
      cb: BigInt(v.burstBytes),
      eb: 0n,
      rate_type: RATE.SSE2_QOS_RATE_API_KBPS,
      round_type: ROUND.SSE2_QOS_ROUND_API_TO_CLOSEST,
      type: POLICER_TYPE.SSE2_QOS_POLICER_TYPE_API_1R2C,
      color_aware: false,
      conform_action: { type: ACTION.SSE2_QOS_ACTION_API_TRANSMIT, dscp: 0 },
      exceed_action: { type: ACTION.SSE2_QOS_ACTION_API_DROP, dscp: 0 },
      violate_action: { type: ACTION.SSE2_QOS_ACTION_API_DROP, dscp: 0 },
    },
  };
  try {
    return (await ctx.client.call(msg.policer_add, request)).policer_index;
  } catch (err) {
    // One of this name bound to nothing (a crash between its creation and its binding): replaced.
    if (!(err instanceof VppRetvalError && err.retval === VALUE_EXIST)) throw err;
    await deletePolicer(ctx, v.port);
    return (await ctx.client.call(msg.policer_add, request)).policer_index;
  }
}

async function deletePolicer(ctx: ServicesContext, port: string): Promise<void> {
  // By name: the index may be unknown (a policer bound to nothing) or stale.
  await ctx.client.call(msg.policer_add_del, {
    is_add: false,
    name: tags.vmRatePolicer(port),
    cir: 0,
    eir: 0,
    cb: 0n,
    eb: 0n,
    rate_type: RATE.SSE2_QOS_RATE_API_KBPS,
    round_type: ROUND.SSE2_QOS_ROUND_API_TO_CLOSEST,
    type: POLICER_TYPE.SSE2_QOS_POLICER_TYPE_API_1R2C,
    color_aware: false,
    conform_action: { type: ACTION.SSE2_QOS_ACTION_API_DROP, dscp: 0 },
    exceed_action: { type: ACTION.SSE2_QOS_ACTION_API_DROP, dscp: 0 },
    violate_action: { type: ACTION.SSE2_QOS_ACTION_API_DROP, dscp: 0 },
  });
}

/**
 * classify_add_del_table for one of these tables: a new one (`table` ~0), or the delete of
 * `table`. The mask goes with both: VPP checks its length against match_n_vectors first, for
 * deletes too.
 */
function tableRequest(isAdd: boolean, table: number) {
  return {
    is_add: isAdd,
    del_chain: false,
    table_index: table,
    nbuckets: TABLE_BUCKETS,
    memory_size: TABLE_MEMORY,
    skip_n_vectors: SKIP_VECTORS,
    match_n_vectors: MATCH_VECTORS,
    next_table_index: NO_INDEX,
    miss_next_index: NO_INDEX,
    current_data_flag: 0,
    current_data_offset: 0,
    mask: tableMask(),
  };
}

async function deleteTable(ctx: ServicesContext, table: number): Promise<void> {
  await ctx.client.call(msg.classify_add_del_table, tableRequest(false, table));
}

async function bind(ctx: ServicesContext, swIfIndex: number, table: number, isAdd: boolean): Promise<void> {
  await ctx.client.call(msg.policer_classify_set_interface, {
    sw_if_index: swIfIndex,
    ip4_table_index: table,
    ip6_table_index: NO_INDEX,
    l2_table_index: NO_INDEX,
    is_add: isAdd,
  });
  if (isAdd) ctx.policerBindings?.set(swIfIndex, table);
  else ctx.policerBindings?.delete(swIfIndex);
}

/**
 * Unbinds whatever IPv4 table the interface has: VPP keeps a binding when its interface is
 * deleted, and a new interface with that sw_if_index inherits it with the feature off, where
 * an add answers 0 and enables nothing (src/vpp/sim/policer-classify.ts).
 */
async function clearBinding(ctx: ServicesContext, swIfIndex: number): Promise<void> {
  const old = ctx.policerBindings
    ? ctx.policerBindings.get(swIfIndex)
    : (await ctx.client.dump(msg.policer_classify_dump, { type: IP4, sw_if_index: 0 })).find(
        (b) => b.sw_if_index === swIfIndex,
      )?.table_index;
  if (old !== undefined) await bind(ctx, swIfIndex, old, false);
}

export const vmRateLimitDescriptor = defineKind<VmRateLimitValue, ServicesContext>({
  kind: 'vm-rate-limit',
  key: (v) => keys.vmRateLimit(v.port),
  deps: (v) => (v.iface === '' ? [] : [keys.interface(v.iface)]),
  equivalent: (a, b) =>
    a.port === b.port &&
    a.iface === b.iface &&
    a.rateKbps === b.rateKbps &&
    a.burstBytes === b.burstBytes &&
    a.destinations.length === b.destinations.length &&
    a.destinations.every((d, i) => d === b.destinations[i]),
  async create(ctx, { value: v }) {
    const swIfIndex = ctx.interfaces.index(v.iface);
    await clearBinding(ctx, swIfIndex);
    const policer = await addPolicer(ctx, v);
    let table: number | undefined;
    try {
      const reply = await ctx.client.call(msg.classify_add_del_table, tableRequest(true, NO_INDEX));
      table = reply.new_table_index;
      const created = table;
      await Promise.all(
        v.destinations.map((d) =>
          ctx.client.call(msg.classify_add_del_session, {
            is_add: true,
            table_index: created,
            hit_next_index: policer,
            opaque_index: NO_INDEX,
            advance: 0,
            action: msg.classify_action_t.values.CLASSIFY_API_ACTION_NONE,
            metadata: 0,
            match: sessionMatch(d),
          }),
        ),
      );
      await bind(ctx, swIfIndex, table, true);
    } catch (err) {
      // Nothing of a half-made limit stays behind; the error that stopped it is the one reported.
      if (table !== undefined) await deleteTable(ctx, table).catch(() => undefined);
      await deletePolicer(ctx, v.port).catch(() => undefined);
      throw err;
    }
  },
  async delete(ctx, { value: v }) {
    const table = v.found?.table;
    // An interface that is gone cannot be named (VPP checks the sw_if_index first).
    if (table !== undefined && v.iface !== '' && ctx.interfaces.has(v.iface))
      await bind(ctx, ctx.interfaces.index(v.iface), table, false);
    if (table !== undefined) await deleteTable(ctx, table);
    await deletePolicer(ctx, v.port);
  },
});
