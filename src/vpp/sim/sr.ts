/**
 * SRv6: encap source and hop limit, policies and steering (src/vnet/srv6/sr_api.c,
 * sr_policy_rewrite.c, sr_steering.c in VPP 26.06). The raw negative numbers these return are
 * SR's own, not vnet error names (see ../shared/vpp-srv6.md). Local SIDs are sr-localsids.ts, the
 * steering entries' shape and cached details frames sr-steering-details.ts.
 */
import type { Message } from '../codec/schema.js';
import { msg } from '../messages/index.js';
import { VppCrash, type Dispatcher } from './dispatcher.js';
import type { FibTable } from './fib.js';
import { DpoProto, PathType } from './fib-path.js';
import { FibSource } from './fib-sources.js';
import { fromApiAddress, ip6Bytes, ipText, type Af } from './ip-addr.js';
import { Rv } from './retval.js';
import { STEER, SteeringFrames, type SteeringPolicy } from './sr-steering-details.js';
import type { Vpp } from './vpp.js';
import { VppPool } from './vpp-pool.js';

export interface SrPolicy {
  readonly bsid: Buffer;
  readonly type: number;
  readonly fibTable: number;
  readonly isEncap: boolean;
  readonly encapSrc: Buffer;
  segmentLists: { index: number; sids: Buffer[]; weight: number }[];
  /** Load-balances of the policy (bsid_dpo, ip6_dpo, ip4_dpo). */
  readonly lbBsid: number;
  readonly lbIp6: number;
  readonly lbIp4: number;
}

/** SR_SEGMENT_LIST_WEIGHT_DEFAULT */
const SL_WEIGHT_DEFAULT = 1;

export class Sr {
  readonly #vpp: Vpp;
  encapSource: Buffer = Buffer.alloc(16);
  hopLimit = 64;
  readonly policies = new VppPool<SrPolicy>();
  readonly #policyIndex = new Map<string, number>();
  readonly #sidLists = new VppPool<true>();
  readonly steering = new VppPool<SteeringPolicy>();
  readonly #frames = new SteeringFrames();
  readonly #steerIndex = new Map<string, number>();
  /** sm->fib_table_ip6 / fib_table_ip4: SR's own steering tables, created with the first policy. */
  #tableIp6: FibTable | undefined;
  #tableIp4: FibTable | undefined;

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
  }

  get #fib() {
    return this.#vpp.fib;
  }

  /** sr_policy_add */
  policyAdd(
    bsid: Buffer,
    sids: Buffer[],
    encapSrc: Buffer | undefined,
    weight: number,
    type: number,
    fibTable: number,
    isEncap: boolean,
  ): number {
    const key = bsid.toString('hex');
    if (this.#policyIndex.has(key)) return -12;
    const table = fibTable !== 0xffffffff ? fibTable : 0;
    const t = this.#fib.find(6, table);
    if (!t) return -13;
    if (this.#fib.lookupExact(t, { af: 6, addr: bsid, len: 128 })) return -12;
    const slIndex = this.#sidLists.add(() => true);
    if (!this.#tableIp6) {
      this.#tableIp6 = this.#fib.createAndLock(
        6,
        FibSource.SR,
        'SRv6 steering of IP6 prefixes through BSIDs',
      );
      this.#tableIp4 = this.#fib.createAndLock(
        6,
        FibSource.SR,
        'SRv6 steering of IP4 prefixes through BSIDs',
      );
    }
    // update_lb: bsid_dpo and ip6_dpo load-balances, the BSID in the policy's table and in SR's
    // IPv6 steering table, then (encap) ip4_dpo and the BSID in SR's IPv4 steering table.
    const lbBsid = this.#fib.lbs.create();
    const lbIp6 = this.#fib.lbs.create();
    this.#fib.sourceAdd(t, { af: 6, addr: bsid, len: 128 }, FibSource.SR, { kind: 'lb', lb: lbBsid });
    this.#fib.sourceAdd(this.#tableIp6, { af: 6, addr: bsid, len: 128 }, FibSource.SR, {
      kind: 'lb',
      lb: lbIp6,
    });
    let lbIp4 = -1;
    if (isEncap) {
      lbIp4 = this.#fib.lbs.create();
      this.#fib.sourceAdd(this.#tableIp4 as FibTable, { af: 6, addr: bsid, len: 128 }, FibSource.SR, {
        kind: 'lb',
        lb: lbIp4,
      });
    }
    const index = this.policies.add(() => ({
      bsid: Buffer.from(bsid),
      type,
      fibTable: table,
      isEncap,
      // create_sl: the policy's source is the one given, else the global encap source
      encapSrc: isEncap ? Buffer.from(encapSrc ?? this.encapSource) : Buffer.alloc(16),
      segmentLists: [
        {
          index: slIndex,
          sids: sids.map((s) => Buffer.from(s)),
          weight: weight !== 0xffffffff ? weight : SL_WEIGHT_DEFAULT,
        },
      ],
      lbBsid,
      lbIp6,
      lbIp4,
    }));
    this.#policyIndex.set(key, index);
    return 0;
  }

  /** sr_policy_del (by BSID; the index argument is only used without a BSID) */
  policyDel(bsid: Buffer): number {
    const key = bsid.toString('hex');
    const at = this.#policyIndex.get(key);
    if (at === undefined) return -1;
    const p = this.policies.get(at) as SrPolicy;
    const pfx = { af: 6 as Af, addr: p.bsid, len: 128 };
    const t = this.#fib.find(6, p.fibTable);
    if (t) this.#fib.sourceRemove(t, pfx, FibSource.SR);
    if (this.#tableIp6) this.#fib.sourceRemove(this.#tableIp6, pfx, FibSource.SR);
    if (p.isEncap && this.#tableIp4) this.#fib.sourceRemove(this.#tableIp4, pfx, FibSource.SR);
    this.#fib.lbs.unlock(p.lbBsid);
    if (p.lbIp4 >= 0) this.#fib.lbs.unlock(p.lbIp4);
    this.#fib.lbs.unlock(p.lbIp6);
    for (const sl of p.segmentLists) this.#sidLists.remove(sl.index);
    this.policies.remove(at);
    this.#policyIndex.delete(key);
    this.#maybeReleaseTables();
    return 0;
  }

  #maybeReleaseTables(): void {
    if (this.policies.size === 0 && this.steering.size === 0 && this.#tableIp6 && this.#tableIp4) {
      this.#fib.unlock(this.#tableIp6, FibSource.SR);
      this.#fib.unlock(this.#tableIp4, FibSource.SR);
      this.#tableIp6 = undefined;
      this.#tableIp4 = undefined;
    }
  }

  /** sr_policy_mod: 1 add a segment list, 2 delete one, 3 change a weight */
  policyMod(bsid: Buffer, operation: number, sids: Buffer[], slIndex: number, weight: number): number {
    const at = this.#policyIndex.get(bsid.toString('hex'));
    if (at === undefined) return -1;
    const p = this.policies.get(at) as SrPolicy;
    if (operation === 1) {
      const index = this.#sidLists.add(() => true);
      p.segmentLists.push({
        index,
        sids: sids.map((s) => Buffer.from(s)),
        weight: weight !== 0xffffffff ? weight : SL_WEIGHT_DEFAULT,
      });
      return 0;
    }
    if (operation === 2) {
      if (p.segmentLists.length === 1) return -21;
      const i = p.segmentLists.findIndex((s) => s.index === slIndex);
      if (i < 0) return -22;
      this.#sidLists.remove(slIndex);
      p.segmentLists.splice(i, 1);
      return 0;
    }
    if (operation === 3) {
      const sl = p.segmentLists.find((s) => s.index === slIndex);
      if (!sl) return -32;
      sl.weight = weight;
      return 0;
    }
    return -1;
  }

  /** sr_steering_policy; `steered` is told of the entry created or re-pointed. */
  steer(
    isDel: boolean,
    bsid: Buffer,
    tableId: number,
    prefix: Buffer,
    len: number,
    swIfIndex: number,
    trafficType: number,
    steered?: (index: number, entry: SteeringPolicy) => void,
  ): number {
    const table = tableId !== 0xffffffff ? tableId : 0;
    let key: string;
    if (trafficType === STEER.IPV4 || trafficType === STEER.IPV6) {
      key = `${trafficType}|${prefix.toString('hex')}/${len}|${table}`;
    } else if (trafficType === STEER.L2) {
      const sw = this.#vpp.interfaces.get(swIfIndex);
      if (!sw) return -3;
      key = `${trafficType}|sw${swIfIndex}`;
    } else {
      return -1;
    }
    const at = this.#steerIndex.get(key);
    const fibPrefix = (s: SteeringPolicy): { af: Af; addr: Buffer; len: number } => ({
      af: s.trafficType === STEER.IPV6 ? 6 : 4,
      addr: s.prefix,
      len: s.prefixLen,
    });
    const tableOf = (s: SteeringPolicy): FibTable => {
      const t = this.#fib.find(s.trafficType === STEER.IPV6 ? 6 : 4, s.fibTable);
      // fib_table_find () == ~0 handed to fib_table_entry_*: VPP dereferences an invalid index
      if (!t) throw new VppCrash(`sr steering: fib table ${s.fibTable} does not exist`);
      return t;
    };
    if (at !== undefined) {
      const s = this.steering.get(at) as SteeringPolicy;
      if (isDel) {
        if (s.trafficType !== STEER.L2) this.#fib.sourceRemove(tableOf(s), fibPrefix(s), FibSource.SR);
        this.steering.remove(at);
        this.#frames.forget(at);
        this.#steerIndex.delete(key);
        this.#maybeReleaseTables();
        return 0;
      }
      // Re-pointing an existing steering entry: no is_encap check on this path (goto update_fib)
      const pi = this.#policyIndex.get(bsid.toString('hex'));
      if (pi === undefined) return -2;
      s.policy = pi;
      // The policy's own Buffer, never written to: a copy per entry was 100k Buffers on a node.
      s.bsid = (this.policies.get(pi) as SrPolicy).bsid;
      if (s.trafficType !== STEER.L2) this.#fib.sourceRemove(tableOf(s), fibPrefix(s), FibSource.SR);
      this.#installSteering(s);
      steered?.(at, s);
      return 0;
    }
    if (isDel) return -4;
    const pi = this.#policyIndex.get(bsid.toString('hex'));
    if (pi === undefined) return -2;
    const p = this.policies.get(pi) as SrPolicy;
    const s: SteeringPolicy = {
      trafficType,
      fibTable: trafficType === STEER.L2 ? 0 : table,
      prefix: Buffer.from(prefix),
      prefixLen: trafficType === STEER.L2 ? 0 : len,
      swIfIndex: trafficType === STEER.L2 ? swIfIndex : 0,
      policy: pi,
      bsid: p.bsid,
    };
    if ((trafficType === STEER.L2 || trafficType === STEER.IPV4) && !p.isEncap) return -5;
    const index = this.steering.add(() => s);
    // One flat string (normalize() of ASCII text), not the concatenation's tree of parts: 100k
    // such trees were ~8 MB of a busy node's simulator.
    this.#steerIndex.set(key.normalize(), index);
    this.#installSteering(s);
    steered?.(index, s);
    return 0;
  }

  /** update_fib: a recursive route through the BSID, resolved in SR's steering table. */
  #installSteering(s: SteeringPolicy): void {
    if (s.trafficType === STEER.L2) return;
    const p = this.policies.get(s.policy) as SrPolicy;
    const via = s.trafficType === STEER.IPV6 ? this.#tableIp6 : this.#tableIp4;
    const t = this.#fib.find(s.trafficType === STEER.IPV6 ? 6 : 4, s.fibTable);
    if (!t) throw new VppCrash(`sr steering: fib table ${s.fibTable} does not exist`);
    this.#fib.pathAdd(
      t,
      { af: s.trafficType === STEER.IPV6 ? 6 : 4, addr: s.prefix, len: s.prefixLen },
      FibSource.SR,
      [
        {
          type: PathType.RECURSIVE,
          proto: DpoProto.IP6,
          swIfIndex: 0xffffffff,
          nh: p.bsid,
          fibIndex: via ? via.index : 0,
          weight: 1,
          preference: 0,
          cfg: 0,
        },
      ],
    );
  }

  register(d: Dispatcher): void {
    d.on(msg.sr_set_encap_source, (m, call) => {
      this.encapSource = ip6Bytes(m.encaps_source);
      call.reply({ retval: 0 });
    });

    d.on(msg.sr_set_encap_hop_limit, (m, call) => {
      if (m.hop_limit === 0) return call.reply({ retval: Rv.INVALID_VALUE });
      this.hopLimit = m.hop_limit;
      call.reply({ retval: 0 });
    });

    const sidsOf = (s: Message<typeof msg.sr_policy_add>['sids']): Buffer[] =>
      s.sids.slice(0, s.num_sids).map((x) => ip6Bytes(x));

    d.on(msg.sr_policy_add, (m, call) => {
      // the segment list weight comes from sids.weight; the top-level weight is ignored
      call.reply({
        retval: this.policyAdd(
          ip6Bytes(m.bsid_addr),
          sidsOf(m.sids),
          undefined,
          m.sids.weight >>> 0,
          m.is_spray ? 1 : 0,
          m.fib_table >>> 0,
          m.is_encap,
        ),
      });
    });

    d.on(msg.sr_policy_add_v2, (m, call) => {
      let src = ip6Bytes(m.encap_src);
      if (src.every((x) => x === 0)) src = Buffer.from(this.encapSource);
      call.reply({
        retval: this.policyAdd(
          ip6Bytes(m.bsid_addr),
          sidsOf(m.sids),
          src,
          m.sids.weight >>> 0,
          m.type,
          m.fib_table >>> 0,
          m.is_encap,
        ),
      });
    });

    d.on(msg.sr_policy_mod, (m, call) => {
      call.reply({
        retval: this.policyMod(
          ip6Bytes(m.bsid_addr),
          m.operation,
          sidsOf(m.sids),
          m.sl_index >>> 0,
          m.sids.weight >>> 0,
        ),
      });
    });

    d.on(msg.sr_policy_del, (m, call) => {
      call.reply({ retval: this.policyDel(ip6Bytes(m.bsid_addr)) });
    });

    // An entry's details frame is made when it is created or re-pointed, a few microseconds each,
    // rather than at the next dump: a drift check's dump after a minute of 1,000 changes a second
    // encoded 60k frames in one go, and meanwhile this one thread answered no other connection —
    // the agent's route deltas waited behind it (bench/fleet (c)). VPP encodes as it dumps, in C.
    const cacheFrame = (index: number, entry: SteeringPolicy): void =>
      void this.#steeringFrame(d, index, entry);
    d.on(msg.sr_steering_add_del, (m, call) => {
      if (m.traffic_type === STEER.L2 && !this.#vpp.interfaces.isValid(m.sw_if_index))
        return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      const prefix = fromApiAddress(m.prefix.address);
      call.reply({
        retval: this.steer(
          m.is_del,
          ip6Bytes(m.bsid_addr),
          m.table_id >>> 0,
          prefix,
          m.prefix.len,
          m.sw_if_index >>> 0,
          m.traffic_type,
          cacheFrame,
        ),
      });
    });

    const sidLists = (p: SrPolicy): { num_sids: number; weight: number; sids: string[] }[] =>
      p.segmentLists.map((sl) => ({
        num_sids: sl.sids.length,
        weight: sl.weight,
        sids: sl.sids.map((s) => ipText(s)),
      }));

    d.on(msg.sr_policies_v2_dump, (_m, call) => {
      if (!call.reg) return;
      for (const p of this.policies.values()) {
        call.details(msg.sr_policies_v2_details, {
          bsid: ipText(p.bsid),
          encap_src: ipText(p.encapSrc),
          type: p.type,
          is_encap: p.isEncap,
          fib_table: p.fibTable,
          sid_lists: sidLists(p),
        });
      }
    });

    d.on(msg.sr_policies_dump, (_m, call) => {
      if (!call.reg) return;
      for (const p of this.policies.values()) {
        call.details(msg.sr_policies_details, {
          bsid: ipText(p.bsid),
          is_spray: p.type === 1,
          is_encap: p.isEncap,
          fib_table: p.fibTable,
          sid_lists: sidLists(p),
        });
      }
    });

    d.on(msg.sr_steering_pol_dump, (_m, call) => {
      if (!call.reg) return;
      // Indexed, with the cache beside the pool: the generator and a WeakMap lookup per entry were
      // most of a 100k-entry dump's time.
      for (let i = 0; i < this.steering.length; i++) {
        const s = this.steering.get(i);
        if (s === undefined) continue;
        const frame = this.#steeringFrame(d, i, s);
        if (!frame) return;
        call.detailsFrame(frame);
      }
    });
  }

  /** The entry's details frame as a dump would send it now: its policy's BSID, else its own. */
  #steeringFrame(d: Dispatcher, i: number, s: SteeringPolicy): Buffer | undefined {
    const p = this.policies.get(s.policy);
    return this.#frames.frame(d, i, s, p ? p.bsid : s.bsid);
  }
}
