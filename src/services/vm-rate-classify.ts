/**
 * The classifier side of the per-VM service rate limit (vm-rate-limit.ts): the two table shapes
 * (a VM port's IPv4 destinations, the service BVI's IPv6 sources), their sessions naming a VM's
 * policer, and the policer-classify bindings, kept in the pass's reading as they change. Apart
 * from the kinds because these are VPP's classify and policer-classify requests, shared by both.
 */
import type { PolicerClassifyBinding } from './policer-classify-reading.js';
import { tags } from '../dataplane/keys.js';
import { intToIp4, ip4ToInt } from '../net/ip.js';
import { formatIp6, writeIp6Literal } from '../net/ip-literal.js';
import { msg } from '../vpp/messages/index.js';
import { NO_INDEX } from '../vpp/messages/sentinels.js';
import type { ServicesContext } from './context.js';

/**
 * A table's shape. The classifiers match from b->data, the Ethernet header, in 16-byte vectors
 * after the skipped ones.
 * - A VM port's IPv4 table: one skipped vector, two matched, the destination at frame bytes
 *   30..33 (14..17 of the matched vectors), as `classify table mask l3 ip4 dst` builds it.
 * - The BVI's IPv6 table: none skipped, three matched: the ethertype (12..13, 0x86dd) and the
 *   IPv6 source (14 + 8: 22..37), as `classify table mask l2 proto l3 ip6 src` builds it (read
 *   back on VPP 26.06). A forwarded packet's new Ethernet header lies where the received one did,
 *   at b->data (ip6-input advances past it, ip6-rewrite steps back over its rewrite).
 */
export interface Shape {
  readonly skip: number;
  readonly match: number;
  /** Frame bytes: [offset, bytes] that the mask covers. */
  readonly fields: readonly (readonly [number, number])[];
}

export const IP4_DST: Shape = { skip: 1, match: 2, fields: [[30, 4]] };
export const L2_IP6_SRC: Shape = {
  skip: 0,
  match: 3,
  fields: [
    [12, 2],
    [22, 16],
  ],
};
const ETHERTYPE_IP6 = 0x86dd;

/** The IPv4 tables: a handful of sessions, the smallest table VPP makes (2 buckets), 64 KiB. */
const TABLE_BUCKETS = 2;
const TABLE_MEMORY = 64 << 10;

const TABLE_TYPE = msg.policer_classify_table_t.values;

function tableMask(s: Shape): Buffer {
  const mask = Buffer.alloc(s.match * 16);
  const at = s.skip * 16;
  for (const [offset, bytes] of s.fields) mask.fill(0xff, offset - at, offset - at + bytes);
  return mask;
}

export function ip4Match(destination: string): Buffer {
  const match = Buffer.alloc((IP4_DST.skip + IP4_DST.match) * 16);
  match.writeUInt32BE(ip4ToInt(destination), 30);
  return match;
}

function ip6SourceMatch(source: string): Buffer {
  const match = Buffer.alloc((L2_IP6_SRC.skip + L2_IP6_SRC.match) * 16);
  match.writeUInt16BE(ETHERTYPE_IP6, 12);
  if (!writeIp6Literal(source, match, 22))
    throw new TypeError(`not an IPv6 address: ${JSON.stringify(source)}`);
  return match;
}

/** What a session of the IPv4 table matches (its key, without the skipped vector). */
export function destinationOf(key: Uint8Array): string {
  const at = 30 - IP4_DST.skip * 16;
  if (key.length < at + 4) return '?';
  return intToIp4(Buffer.from(key.buffer, key.byteOffset, key.length).readUInt32BE(at));
}

/** What a session of the IPv6 table matches; '?' for a key not of an IPv6 source. */
export function sourceOf(key: Uint8Array): string {
  const k = Buffer.from(key.buffer, key.byteOffset, key.length);
  if (k.length < 38 || k.readUInt16BE(12) !== ETHERTYPE_IP6) return '?';
  return formatIp6(k, 22);
}

/** Whether a bound table is in `s`'s shape. */
export function shapeOk(s: Shape, b: PolicerClassifyBinding): boolean {
  const info = b.info;
  return (
    info !== undefined &&
    info.skip_n_vectors === s.skip &&
    info.match_n_vectors === s.match &&
    Buffer.from(info.mask).equals(tableMask(s))
  );
}

/** The IPv6 rate table's size for a node whose VMs take `hosts` service addresses at most. */
export function table6Size(hosts: number): { buckets: number; memory: number } {
  // Two sessions a bucket; VPP rounds nbuckets up to a power of two, as here.
  let buckets = 2;
  while (buckets * 2 < hosts && buckets < 1 << 16) buckets *= 2;
  // An entry is ~80 bytes (its header and three vectors) in pages that split as buckets fill:
  // 512 bytes a VM leaves room. The heap is mapped lazily: what is not used costs no memory.
  return { buckets, memory: Math.max(TABLE_MEMORY, hosts * 512) };
}

/**
 * classify_add_del_table for one of these tables: a new one (`table` ~0), or the delete of
 * `table`. The mask goes with both: VPP checks its length against match_n_vectors first, for
 * deletes too. A miss goes on to the node's next feature (miss_next_index ~0).
 */
export function tableRequest(
  s: Shape,
  isAdd: boolean,
  table: number,
  size = { buckets: TABLE_BUCKETS, memory: TABLE_MEMORY },
) {
  return {
    is_add: isAdd,
    del_chain: false,
    table_index: table,
    nbuckets: size.buckets,
    memory_size: size.memory,
    skip_n_vectors: s.skip,
    match_n_vectors: s.match,
    next_table_index: NO_INDEX,
    miss_next_index: NO_INDEX,
    current_data_flag: 0,
    current_data_offset: 0,
    mask: tableMask(s),
  };
}

export async function deleteTable(ctx: ServicesContext, s: Shape, table: number): Promise<void> {
  await ctx.client.call(msg.classify_add_del_table, tableRequest(s, false, table));
}

export function session(table: number, policer: number, match: Buffer, isAdd: boolean) {
  return {
    is_add: isAdd,
    table_index: table,
    hit_next_index: policer,
    opaque_index: NO_INDEX,
    advance: 0,
    action: msg.classify_action_t.values.CLASSIFY_API_ACTION_NONE,
    metadata: 0,
    match,
  };
}

/**
 * Binds (or unbinds) the tables given, in one policer_classify_set_interface (VPP takes ip4, then
 * ip6, then l2, skipping ~0). An add on a type that has a table already answers 0 and binds
 * nothing from there on, so whatever was bound is unbound first (clearBinding).
 */
export async function setBinding(
  ctx: ServicesContext,
  swIfIndex: number,
  tables: { readonly ip4?: number | undefined; readonly l2?: number | undefined },
  isAdd: boolean,
): Promise<void> {
  await ctx.client.call(msg.policer_classify_set_interface, {
    sw_if_index: swIfIndex,
    ip4_table_index: tables.ip4 ?? NO_INDEX,
    ip6_table_index: NO_INDEX,
    l2_table_index: tables.l2 ?? NO_INDEX,
    is_add: isAdd,
  });
  const map = ctx.policerBindings;
  if (!map) return;
  const was = map.get(swIfIndex) ?? { ip4: undefined, l2: undefined };
  const now = {
    ip4: tables.ip4 === undefined ? was.ip4 : isAdd ? tables.ip4 : undefined,
    l2: tables.l2 === undefined ? was.l2 : isAdd ? tables.l2 : undefined,
  };
  if (now.ip4 === undefined && now.l2 === undefined) map.delete(swIfIndex);
  else map.set(swIfIndex, now);
}

/** The table of `type` bound to an interface: from the pass's reading, else asked of VPP. */
async function boundTable(
  ctx: ServicesContext,
  swIfIndex: number,
  type: 'ip4' | 'l2',
): Promise<number | undefined> {
  if (ctx.policerBindings) return ctx.policerBindings.get(swIfIndex)?.[type];
  const t =
    type === 'ip4' ? TABLE_TYPE.POLICER_CLASSIFY_API_TABLE_IP4 : TABLE_TYPE.POLICER_CLASSIFY_API_TABLE_L2;
  const all = await ctx.client.dump(msg.policer_classify_dump, { type: t, sw_if_index: 0 });
  return all.find((b) => b.sw_if_index === swIfIndex)?.table_index;
}

/**
 * Unbinds whatever table of `type` the interface has: VPP keeps a binding when its interface is
 * deleted, and a new interface with that sw_if_index inherits it with the feature off, where an
 * add answers 0 and enables nothing (src/vpp/sim/policer-classify.ts).
 */
export async function clearBinding(
  ctx: ServicesContext,
  swIfIndex: number,
  type: 'ip4' | 'l2',
): Promise<void> {
  const old = await boundTable(ctx, swIfIndex, type);
  if (old !== undefined) await setBinding(ctx, swIfIndex, { [type]: old }, false);
}

/** The IPv6 rate table bound to the service BVI now. */
async function table6Now(ctx: ServicesContext): Promise<number> {
  const bvi = tags.servicesBvi();
  const table = ctx.interfaces.has(bvi) ? await boundTable(ctx, ctx.interfaces.index(bvi), 'l2') : undefined;
  if (table === undefined) throw new Error('the service bridge has no IPv6 rate table');
  return table;
}

/** Adds the VM's IPv6 sessions; none stays behind if one fails. */
export async function addSessions6(
  ctx: ServicesContext,
  sources: readonly string[],
  policer: number,
): Promise<void> {
  if (sources.length === 0) return;
  const table = await table6Now(ctx);
  const added: string[] = [];
  try {
    for (const s of sources) {
      await ctx.client.call(msg.classify_add_del_session, session(table, policer, ip6SourceMatch(s), true));
      added.push(s);
    }
  } catch (err) {
    await deleteSessions6(ctx, table, added).catch(() => undefined);
    throw err;
  }
}

export async function deleteSessions6(
  ctx: ServicesContext,
  table: number,
  sources: readonly string[],
): Promise<void> {
  for (const s of sources)
    await ctx.client.call(msg.classify_add_del_session, session(table, 0, ip6SourceMatch(s), false));
}
