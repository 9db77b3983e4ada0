/**
 * What VPP holds of vppnet's SRv6 policies (remote SID → BSID) and steering entries ((table,
 * prefix) → policy), as a converged full pass left it plus the route deltas applied since
 * (route-delta.ts). It lets a delta pass plan against VPP without dumping it: the steering dump
 * alone is 100k entries on a busy node.
 *
 * Compact, since the agent's whole RSS budget is 200 MB: IPv4 entries live in one Map per (table,
 * prefix length) keyed by the address as an int32 (a small integer in V8, no heap number), with
 * the index of their policy as the value; each policy's SID and BSID are held once. IPv6 entries
 * likewise, one Map per (table, prefix length) keyed by the address as a 128-bit bigint.
 */
import type { AgentConfig } from '../config/model.js';
import { SteeringEntries } from '../srv6/steering-entries.js';
import {
  bigIntToIp6,
  intToIp4,
  ip4ToInt,
  ip6ToBigInt,
  isIp6,
  routedPrefixes,
  type Ip4Prefix,
  type Ip6Prefix,
} from '../net/ip.js';

/** The settings of the node the model was built for: a delta against other ones is refused. */
export interface SteeringModelBasis {
  readonly vppPid: number;
  readonly bsidPrefix: Ip6Prefix;
  readonly encapSource: string;
  readonly hopLimit: number;
  /** Each VPC's table, by VPC name. */
  readonly tables: ReadonlyMap<string, number>;
  /** The VPCs that have an IPv6 table (the full pass created it): only they take IPv6 entries. */
  readonly ip6Vpcs: ReadonlySet<string>;
}

export class SteeringModel {
  readonly basis: SteeringModelBasis;
  /** Per policy slot: its remote SID, its BSID, how many entries point at it. */
  readonly #sids: (string | undefined)[] = [];
  readonly #bsids: (string | undefined)[] = [];
  readonly #uses: number[] = [];
  readonly #freeSlots: number[] = [];
  readonly #slotOfSid = new Map<string, number>();
  /** (table × 64 + prefix length) → address as int32 → policy slot. */
  readonly #entries = new Map<number, Map<number, number>>();
  /** (table × 256 + prefix length) → address as a 128-bit bigint → policy slot, for IPv6 entries. */
  readonly #entries6 = new Map<number, Map<bigint, number>>();
  #size = 0;
  /** Of #size, the IPv6 entries. */
  #size6 = 0;
  #invalidReason: string | undefined;
  /**
   * The converged pass's entries of each family and each of their BSID indexes' slot, not yet in
   * #entries and #entries6: put there at the first use (#materialize), so that a pass whose model
   * is replaced by the next pass's before any delta (every pass of a node in file mode, every
   * drift-check pass of a quiet one in fleet mode) never builds 100k map entries.
   */
  #unplaced: readonly { readonly steering: SteeringEntries; readonly slotOfIndex: readonly number[] }[] = [];

  private constructor(basis: SteeringModelBasis) {
    this.basis = basis;
  }

  /**
   * The model of a pass that converged for policies and steering: VPP holds one policy per entry
   * of `bsids` (remote SID → BSID) and exactly the `steering` (IPv4) and `steering6` (IPv6)
   * entries, each pointing at one of them.
   */
  static converged(
    config: AgentConfig,
    vppPid: number,
    bsids: ReadonlyMap<string, string>,
    steering: SteeringEntries,
    steering6: SteeringEntries = new SteeringEntries(0, 6),
  ): SteeringModel {
    const { bsidPrefix, encapSource, hopLimit } = config.node.srv6;
    const tables = new Map(config.vpcs.map((v) => [v.name, v.table]));
    const ip6Vpcs = new Set(config.vpcs.filter((v) => v.subnets6.length > 0).map((v) => v.name));
    const model = new SteeringModel({ vppPid, bsidPrefix, encapSource, hopLimit, tables, ip6Vpcs });
    const slotOfBsid = new Map<string, number>();
    for (const [sid, bsid] of bsids) slotOfBsid.set(bsid, model.addPolicy(sid, bsid));
    if (steering.family !== 4 || steering6.family !== 6)
      throw new Error('steering model: the IPv4 entries first, then the IPv6 ones');
    model.#unplaced = [steering, steering6].map((entries) => {
      const slotOfIndex = entries.bsids.map((bsid) => {
        const slot = slotOfBsid.get(bsid);
        if (slot === undefined) throw new Error(`steering points at ${bsid}, which no policy has`);
        return slot;
      });
      return { steering: entries, slotOfIndex };
    });
    return model;
  }

  /** Steering entries held, IPv4 and IPv6. */
  get size(): number {
    this.#materialize();
    return this.#size;
  }

  /** IPv6 steering entries held (of size). */
  get size6(): number {
    this.#materialize();
    return this.#size6;
  }

  /**
   * Puts the converged pass's entries in the maps; every reader of #entries, #entries6, #size or
   * #uses first calls this.
   */
  #materialize(): void {
    const unplaced = this.#unplaced;
    if (unplaced.length === 0) return;
    this.#unplaced = [];
    for (const { steering, slotOfIndex } of unplaced) {
      for (let i = 0; i < steering.size; i++) {
        const slot = slotOfIndex[steering.bsidIndex(i)] as number;
        const [table, len] = [steering.table(i), steering.prefixLength(i)];
        if (steering.family === 4) this.#set(table, steering.address(i), len, slot);
        else this.#set6(table, addressValue(steering, i), len, slot);
      }
    }
  }

  /** Policies held. */
  get policyCount(): number {
    return this.#slotOfSid.size;
  }

  /** False once a delta failed part-way: VPP may differ from the model, which must be dropped. */
  get valid(): boolean {
    return this.#invalidReason === undefined;
  }

  /** Why the model is not valid, if it is not. */
  get invalidReason(): string | undefined {
    return this.#invalidReason;
  }

  invalidate(reason: string): void {
    this.#invalidReason ??= reason;
  }

  /** The BSID of the policy for a remote SID, if VPP has one. */
  bsidOf(sid: string): string | undefined {
    const slot = this.#slotOfSid.get(sid);
    return slot === undefined ? undefined : this.#bsids[slot];
  }

  /** The BSIDs in use, by remote SID. */
  policies(): Map<string, string> {
    const out = new Map<string, string>();
    for (const [sid, slot] of this.#slotOfSid) out.set(sid, this.#bsids[slot] as string);
    return out;
  }

  /**
   * The remote SID an entry (IPv4 or IPv6, as its address is) steers to, if VPP has the entry. An
   * IPv6 /0 is the pair of entries VPP holds for it (routed6): their SID when both have the same.
   */
  sidAt(table: number, prefix: Ip4Prefix | Ip6Prefix): string | undefined {
    if (!isIp6(prefix.address)) return this.sidAtNumber(table, ip4ToInt(prefix.address), prefix.len);
    const [first, ...rest] = routed6(prefix).map(([address, len]) => this.sidAt6(table, address, len));
    return rest.every((sid) => sid === first) ? first : undefined;
  }

  /** The remote SID of the entry with the address as a 32-bit number, if VPP has the entry. */
  sidAtNumber(table: number, address: number, len: number): string | undefined {
    this.#materialize();
    const slot = this.#entries.get(groupKey(table, len))?.get(address | 0);
    return slot === undefined ? undefined : this.#sids[slot];
  }

  /**
   * The IPv4 entries by (table, prefix length): each group's addresses as int32 numbers (| 0 of
   * the 32-bit address), unformatted, so that a caller walking 100k entries in slices (the drift
   * check, steering-audit.ts) allocates nothing per entry and formats only what it reports.
   * Entries set or deleted meanwhile may or may not be visited, as for a Map.
   */
  *entryGroups(): IterableIterator<readonly [table: number, len: number, addresses: Iterable<number>]> {
    this.#materialize();
    for (const [group, byAddress] of this.#entries)
      yield [Math.floor(group / 64), group % 64, byAddress.keys()];
  }

  /** The remote SID of the IPv6 entry with the address as a 128-bit number, if VPP has the entry. */
  sidAt6(table: number, address: bigint, len: number): string | undefined {
    this.#materialize();
    const slot = this.#entries6.get(groupKey6(table, len))?.get(address);
    return slot === undefined ? undefined : this.#sids[slot];
  }

  /** The IPv6 entries by (table, prefix length), as entryGroups: each group's addresses as bigints. */
  *entryGroups6(): IterableIterator<readonly [table: number, len: number, addresses: Iterable<bigint>]> {
    this.#materialize();
    for (const [group, byAddress] of this.#entries6)
      yield [Math.floor(group / 256), group % 256, byAddress.keys()];
  }

  /** Entries pointing at the policy of a remote SID (0 when there is none). */
  usesOf(sid: string): number {
    this.#materialize();
    const slot = this.#slotOfSid.get(sid);
    return slot === undefined ? 0 : (this.#uses[slot] as number);
  }

  /** Every entry: table, prefix ("10.1.0.0/24", "2001:db8::1/128") and the remote SID it steers to. */
  *entries(): IterableIterator<{ table: number; prefix: string; sid: string }> {
    this.#materialize();
    for (const [group, byAddress] of this.#entries) {
      const table = Math.floor(group / 64);
      const len = group % 64;
      for (const [address, slot] of byAddress) {
        yield { table, prefix: `${intToIp4(address >>> 0)}/${len}`, sid: this.#sids[slot] as string };
      }
    }
    for (const [group, byAddress] of this.#entries6) {
      const table = Math.floor(group / 256);
      const len = group % 256;
      for (const [address, slot] of byAddress)
        yield { table, prefix: `${bigIntToIp6(address)}/${len}`, sid: this.#sids[slot] as string };
    }
  }

  // What route-delta.ts applies once VPP confirmed it.

  /** A policy VPP now has. */
  addPolicy(sid: string, bsid: string): number {
    if (this.#slotOfSid.has(sid)) throw new Error(`the model already has a policy for ${sid}`);
    const slot = this.#freeSlots.pop() ?? this.#sids.length;
    this.#sids[slot] = sid;
    this.#bsids[slot] = bsid;
    this.#uses[slot] = 0;
    this.#slotOfSid.set(sid, slot);
    return slot;
  }

  /** A policy VPP no longer has; no entry may point at it. */
  deletePolicy(sid: string): void {
    this.#materialize();
    const slot = this.#slotOfSid.get(sid);
    if (slot === undefined) return;
    if (this.#uses[slot] !== 0) throw new Error(`policy for ${sid} still has ${this.#uses[slot]} entries`);
    this.#slotOfSid.delete(sid);
    this.#sids[slot] = undefined;
    this.#bsids[slot] = undefined;
    this.#freeSlots.push(slot);
  }

  /** An entry VPP now steers to the policy of `sid` (which the model must have), or no longer has. */
  setEntry(table: number, prefix: Ip4Prefix | Ip6Prefix, sid: string | undefined): void {
    this.#materialize();
    const ip6 = isIp6(prefix.address);
    const slot = sid === undefined ? undefined : this.#slotOfSid.get(sid);
    if (sid !== undefined && slot === undefined) throw new Error(`the model has no policy for ${sid}`);
    if (ip6) {
      for (const [address, len] of routed6(prefix)) {
        if (slot === undefined) this.#delete6(table, address, len);
        else this.#set6(table, address, len, slot);
      }
      return;
    }
    const address = ip4ToInt(prefix.address);
    if (slot === undefined) this.#delete(table, address, prefix.len);
    else this.#set(table, address, prefix.len, slot);
  }

  #set6(table: number, address: bigint, len: number, slot: number): void {
    const key = groupKey6(table, len);
    let byAddress = this.#entries6.get(key);
    if (!byAddress) this.#entries6.set(key, (byAddress = new Map<bigint, number>()));
    const previous = byAddress.get(address);
    if (previous !== undefined) this.#count(previous, -1);
    else {
      this.#size++;
      this.#size6++;
    }
    byAddress.set(address, slot);
    this.#count(slot, 1);
  }

  #delete6(table: number, address: bigint, len: number): void {
    const key = groupKey6(table, len);
    const byAddress = this.#entries6.get(key);
    const previous = byAddress?.get(address);
    if (!byAddress || previous === undefined) return;
    byAddress.delete(address);
    if (byAddress.size === 0) this.#entries6.delete(key);
    this.#count(previous, -1);
    this.#size--;
    this.#size6--;
  }

  #set(table: number, address: number, len: number, slot: number): void {
    const key = groupKey(table, len);
    let byAddress = this.#entries.get(key);
    if (!byAddress) this.#entries.set(key, (byAddress = new Map<number, number>()));
    const previous = byAddress.get(address | 0);
    if (previous !== undefined) this.#count(previous, -1);
    else this.#size++;
    byAddress.set(address | 0, slot);
    this.#count(slot, 1);
  }

  #count(slot: number, by: number): void {
    this.#uses[slot] = (this.#uses[slot] ?? 0) + by;
  }

  #delete(table: number, address: number, len: number): void {
    const key = groupKey(table, len);
    const byAddress = this.#entries.get(key);
    const previous = byAddress?.get(address | 0);
    if (!byAddress || previous === undefined) return;
    byAddress.delete(address | 0);
    if (byAddress.size === 0) this.#entries.delete(key);
    this.#count(previous, -1);
    this.#size--;
  }
}

function groupKey(table: number, len: number): number {
  return table * 64 + len;
}

/** An IPv6 entry's group: its table and prefix length (up to 128). */
function groupKey6(table: number, len: number): number {
  return table * 256 + len;
}

/**
 * The entries VPP holds for an IPv6 prefix, as [address, length]: the prefix itself, or for a /0
 * its two halves (net/ip.ts, routedPrefixes), as the full pass and the deltas steer it.
 */
function routed6(prefix: Ip6Prefix): (readonly [bigint, number])[] {
  if (prefix.len !== 0) return [[ip6ToBigInt(prefix.address), prefix.len]];
  return routedPrefixes(prefix.address, 0, 6).map((half) => {
    const cut = half.indexOf('/');
    return [ip6ToBigInt(half.slice(0, cut)), Number(half.slice(cut + 1))] as const;
  });
}

/** An IPv6 entry's address as a 128-bit number. */
function addressValue(entries: SteeringEntries, i: number): bigint {
  let value = 0n;
  for (let w = 0; w < 4; w++) value = (value << 32n) | BigInt(entries.addressWord(i, w));
  return value;
}
