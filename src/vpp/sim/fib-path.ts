/**
 * FIB paths (src/vnet/fib/fib_path.c, fib_api.c in VPP 26.06): their types and flags, the order
 * a path list sorts them in, and how a dump encodes one. Kept apart from the FIB's tables and
 * entries because the API handlers (ip, sr, nat, urpf) build paths without touching those.
 */
import type { Af } from './ip-addr.js';

/** fib_path_type_t in fib_path.c order (also the path-list sort key). */
export const PathType = {
  ATTACHED_NEXT_HOP: 0,
  ATTACHED: 1,
  RECURSIVE: 2,
  SPECIAL: 3,
  EXCLUSIVE: 4,
  DEAG: 5,
  INTF_RX: 6,
  UDP_ENCAP: 7,
  RECEIVE: 8,
  DVR: 12,
} as const;

/** dpo_proto_t; the API's fib_path_nh_proto has the same numbers. */
export const DpoProto = { IP4: 0, IP6: 1, MPLS: 2, ETHERNET: 3, BIER: 4 } as const;

/** Path configuration flags that change how a path encodes. */
export const PathCfg = { DROP: 1, ICMP_UNREACH: 2, ICMP_PROHIBIT: 4, LOCAL: 8 } as const;

export interface FibPath {
  readonly type: number;
  /** Next-hop protocol (dpo_proto_t). */
  readonly proto: number;
  readonly swIfIndex: number;
  /** Next hop: 4 bytes for IPv4, 16 for IPv6; empty when none. */
  readonly nh: Buffer;
  /** For DEAG and RECURSIVE: the fib_index looked up in. */
  readonly fibIndex: number;
  readonly weight: number;
  readonly preference: number;
  readonly cfg: number;
  /** MPLS labels (kept only to be dumped back). */
  readonly labels?: readonly { label: number; ttl: number; exp: number; isUniform: number }[];
}

/** `ip46_address_cmp` on the ip46 layout (IPv4 in the last 4 bytes). */
function nhCompare(a: Buffer, b: Buffer): number {
  const pa = a.length === 4 ? Buffer.concat([Buffer.alloc(12), a]) : a.length === 0 ? Buffer.alloc(16) : a;
  const pb = b.length === 4 ? Buffer.concat([Buffer.alloc(12), b]) : b.length === 0 ? Buffer.alloc(16) : b;
  return Buffer.compare(pa, pb);
}

/** fib_path_cmp_i: type, then protocol, then the type's identifying fields. */
export function comparePaths(a: FibPath, b: FibPath): number {
  if (a.type !== b.type) return a.type - b.type;
  if (a.proto !== b.proto) return a.proto - b.proto;
  switch (a.type) {
    case PathType.ATTACHED_NEXT_HOP:
      return nhCompare(a.nh, b.nh) || a.swIfIndex - b.swIfIndex;
    case PathType.ATTACHED:
    case PathType.DVR:
    case PathType.INTF_RX:
      return a.swIfIndex - b.swIfIndex;
    case PathType.RECURSIVE:
      return nhCompare(a.nh, b.nh) || a.fibIndex - b.fibIndex;
    case PathType.DEAG:
      return a.fibIndex - b.fibIndex;
    case PathType.RECEIVE:
      return a.swIfIndex - b.swIfIndex || nhCompare(a.nh, b.nh);
    default:
      return a.cfg - b.cfg;
  }
}

/** fib_path_encode + fib_api_path_encode: one vl_api_fib_path_t; table ids from `fib`. */
export function encodePath(
  p: FibPath,
  fib: { tableIdOf(af: Af, fibIndex: number): number },
): Record<string, unknown> {
  let type = 0; // FIB_API_PATH_TYPE_NORMAL
  if (p.cfg & PathCfg.ICMP_UNREACH) type = 5;
  else if (p.cfg & PathCfg.ICMP_PROHIBIT) type = 6;
  else if (p.type === PathType.RECEIVE) type = 1;
  else if (p.cfg & PathCfg.DROP) type = 2;
  else if (p.type === PathType.UDP_ENCAP) type = 3;
  else if (p.type === PathType.INTF_RX) type = 9;
  else if (p.type === PathType.DVR) type = 8;
  const swIfIndex =
    p.type === PathType.RECEIVE ||
    p.type === PathType.ATTACHED ||
    p.type === PathType.ATTACHED_NEXT_HOP ||
    p.type === PathType.DVR ||
    p.type === PathType.INTF_RX
      ? p.swIfIndex
      : 0xffffffff;
  const hasNh =
    p.type === PathType.RECEIVE || p.type === PathType.ATTACHED_NEXT_HOP || p.type === PathType.RECURSIVE;
  const fibIndex = p.type === PathType.DEAG || p.type === PathType.RECURSIVE ? p.fibIndex : 0;
  const af: Af = p.proto === DpoProto.IP6 ? 6 : 4;
  let address: Record<string, unknown> = {};
  if (hasNh && p.nh.length === 4 && p.proto === DpoProto.IP4) address = { ip4: new Uint8Array(p.nh) };
  else if (hasNh && p.nh.length === 16 && p.proto === DpoProto.IP6) address = { ip6: new Uint8Array(p.nh) };
  const labels = p.labels ?? [];
  return {
    sw_if_index: swIfIndex,
    // fib_api_path_encode: table_id only when frp_fib_index != 0
    table_id: fibIndex !== 0 ? fib.tableIdOf(af, fibIndex) : 0,
    rpf_id: 0,
    weight: p.weight,
    preference: p.preference,
    type,
    flags: 0,
    proto: p.proto,
    nh: { address, via_label: 0, obj_id: 0, classify_table_index: 0 },
    n_labels: labels.length,
    label_stack: labels.map((l) => ({ is_uniform: 0, label: l.label, ttl: l.ttl, exp: l.exp })),
  };
}

/** The path of a neighbour's host route (ip_neighbor_adj_fib_add): attached, via the interface. */
export function attachedHostPath(af: 4 | 6, addr: Buffer, swIfIndex: number): FibPath {
  return {
    type: PathType.ATTACHED_NEXT_HOP,
    proto: af === 4 ? DpoProto.IP4 : DpoProto.IP6,
    swIfIndex,
    nh: Buffer.from(addr),
    fibIndex: 0,
    weight: 1,
    preference: 0,
    cfg: 0,
  };
}
