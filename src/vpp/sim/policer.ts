/**
 * The policer plugin's policers (src/plugins/policer/policer_op.c, policer_api.c, xlate.c in
 * VPP 26.06), API state only: no packets are policed, no counters.
 *
 * - policer_add / policer_add_del (is_add): a name already there → VALUE_EXIST (-81); a
 *   configuration pol_logical_2_physical refuses → INVALID_VALUE (-7); otherwise 0 and the index
 *   (pm->policers, a pool: the last freed index first). The reply's policer_index is ~0 on any
 *   error. The name is the request's 64 bytes up to the first NUL (an empty name is a name).
 * - policer_add_del (delete): by name; not there → NO_SUCH_ENTRY (-6), policer_index ~0 (also on
 *   success: only a successful add sets it).
 * - policer_del: a free index → NO_SUCH_ENTRY; nothing checks users (policer-classify sessions
 *   name policers by index in their hit_next_index and keep naming a deleted one).
 * - policer_update: a free index → NO_SUCH_ENTRY, then the configuration's check → INVALID_VALUE;
 *   the policer is rebuilt from the new configuration (buckets full again), its name and index
 *   kept.
 * - policer_dump_v2: ~0 → every policer in pool order; an index → that one, or nothing when free.
 *   The details carry the configuration as given (cir/eir/cb/eb in the request's units: pps and
 *   ms for rate_type PPS) and the computed policer: single_rate, scale, cir/pir tokens per period,
 *   current/extended limit and bucket (equal to the limits: nothing consumes tokens here),
 *   last_update_time 0.
 *
 * pol_logical_2_physical (x86_pol_compute_hw_params), what it refuses (rate_type other than
 * KBPS/PPS; then, unless cir, cb and eb are all 0 — the "always violate" policer, accepted for
 * any type — 1R2C with eb; a 1-rate type (1R2C, 1R3C) with cir 0, eir != 0, or cb and eb 0; a
 * 2-rate type (2R3C 2698/4115) with cir 0, eir 0, eir < cir, cb 0 or eb 0; any other type (MEF5CF1
 * and beyond)) and what it computes: PPS rates become kbps at 256-byte packets
 * (qos_convert_pps_to_kbps, rounded to closest) and ms bursts bytes at that rate; bursts are capped
 * at 2^32 - 1; the token counts depend on the CPU's TSC frequency (pm->tsc_hz), which is the
 * host's: `tscHz` below, by default the value measured on the real VPP 26.06 this module was
 * checked against. round_type is not used by the x86 computation.
 */
import type { Message } from '../codec/schema.js';
import { msg } from '../messages/index.js';
import type { Dispatcher } from './dispatcher.js';
import { Rv } from './retval.js';
import { VppPool } from './vpp-pool.js';

const NONE = 0xffffffff;
/** POLICER_TICKS_PER_PERIOD (1 << 17) */
const TICKS_PER_PERIOD = 131072;
/** QOS_POLICER_FIXED_PKT_SIZE */
const PPS_PACKET_BYTES = 256;
/** MAX_RATE_SHIFT in compute_policer_params */
const MAX_RATE_SHIFT = 10;

/**
 * GUESS: the TSC frequency of the host the real VPP 26.06 ran on when this was checked (derived
 * from its token counts: they put it between 2299924539 and 2299924689).
 */
export const DEFAULT_POLICER_TSC_HZ = 2_299_924_613;

export const QosRateType = { KBPS: 0, PPS: 1 } as const;
export const QosPolicerType = { T1R2C: 0, T1R3C_2697: 1, T2R3C_2698: 2, T2R3C_4115: 3 } as const;
export const QosAction = { DROP: 0, TRANSMIT: 1, MARK_AND_TRANSMIT: 2 } as const;

export interface PolicerAction {
  readonly type: number;
  readonly dscp: number;
}

/** qos_pol_cfg_params_st as the API fills it. */
export interface PolicerConfig {
  readonly cir: number;
  readonly eir: number;
  readonly cb: bigint;
  readonly eb: bigint;
  readonly rateType: number;
  readonly roundType: number;
  readonly type: number;
  readonly colorAware: boolean;
  readonly conform: PolicerAction;
  readonly exceed: PolicerAction;
  readonly violate: PolicerAction;
}

/** policer_t's fields the dump shows. */
export interface PolicerHw {
  readonly singleRate: boolean;
  readonly scale: number;
  readonly cirTokensPerPeriod: number;
  readonly pirTokensPerPeriod: number;
  readonly currentLimit: number;
  readonly currentBucket: number;
  readonly extendedLimit: number;
  readonly extendedBucket: number;
}

export interface Policer {
  readonly name: string;
  config: PolicerConfig;
  hw: PolicerHw;
}

/** qos_pol_round (..., QOS_ROUND_TO_CLOSEST) */
const roundClosest = (n: bigint, d: bigint): bigint => (n + d / 2n) / d;

const u32 = (x: number): number => x >>> 0;
/** A C cast of a (non-negative) double to u32 on x86-64: truncated, low 32 bits. */
const doubleToU32 = (x: number): number => Number(BigInt(Math.trunc(x)) & 0xffffffffn);

/** compute_policer_params */
function computeParams(
  hz: number,
  cirRate: number,
  pirRate: number,
  currentLimit: number,
  extendedLimit: number,
): { scale: number; cir: number; pir: number; currentLimit: number; extendedLimit: number } {
  const period = hz / TICKS_PER_PERIOD;
  let cirPerPeriod = cirRate / period;
  let pirPerPeriod = pirRate / period;
  let max = Math.max(currentLimit, extendedLimit);
  max = Math.max(max, u32(doubleToU32(cirPerPeriod) << MAX_RATE_SHIFT));
  max = Math.max(max, u32(doubleToU32(pirPerPeriod) << MAX_RATE_SHIFT));
  const scale = Math.clz32(max);
  cirPerPeriod *= 2 ** scale;
  pirPerPeriod *= 2 ** scale;
  if (cirPerPeriod < 1) cirPerPeriod = 1;
  if (pirPerPeriod < 1) pirPerPeriod = 1;
  return {
    scale,
    cir: doubleToU32(cirPerPeriod),
    pir: doubleToU32(pirPerPeriod),
    currentLimit: u32(currentLimit << scale),
    extendedLimit: u32(extendedLimit << scale),
  };
}

/** pol_logical_2_physical; undefined where it returns -1 */
export function policerHw(cfg: PolicerConfig, hz: number): PolicerHw | undefined {
  let cir: number;
  let eir: number;
  let cb: bigint;
  let eb: bigint;
  if (cfg.rateType === QosRateType.KBPS) {
    [cir, eir, cb, eb] = [cfg.cir, cfg.eir, cfg.cb, cfg.eb];
  } else if (cfg.rateType === QosRateType.PPS) {
    // qos_convert_pps_to_kbps, qos_convert_burst_ms_to_bytes ((u32) ms, kbps)
    cir = Number(roundClosest(BigInt(cfg.cir) * BigInt(PPS_PACKET_BYTES * 8), 1000n) & 0xffffffffn);
    eir = Number(roundClosest(BigInt(cfg.eir) * BigInt(PPS_PACKET_BYTES * 8), 1000n) & 0xffffffffn);
    cb = roundClosest((cfg.cb & 0xffffffffn) * BigInt(cir), 8n) & 0xffffffffn;
    eb = roundClosest((cfg.eb & 0xffffffffn) * BigInt(eir), 8n) & 0xffffffffn;
  } else {
    return undefined;
  }
  // x86_pol_compute_hw_params
  const cap = (x: bigint): number => Number(x > 0xffffffffn ? 0xffffffffn : x);
  let currentLimit = cap(cb);
  let extendedLimit = cap(eb);
  if (cir === 0 && cb === 0n && eb === 0n) {
    // "a uninitialized, always-violate policer": the buckets stay 0
    return {
      singleRate: true,
      scale: 0,
      cirTokensPerPeriod: 0,
      pirTokensPerPeriod: 0,
      currentLimit,
      currentBucket: 0,
      extendedLimit,
      extendedBucket: 0,
    };
  }
  const BYTES_PER_KBIT = 125;
  let singleRate = false;
  let p: ReturnType<typeof computeParams>;
  if (cfg.type === QosPolicerType.T1R2C || cfg.type === QosPolicerType.T1R3C_2697) {
    singleRate = true;
    if (cfg.type === QosPolicerType.T1R2C && eb !== 0n) return undefined;
    if (cir === 0 || eir !== 0 || (cb === 0n && eb === 0n)) return undefined;
    p = computeParams(hz, cir * BYTES_PER_KBIT, 0, currentLimit, extendedLimit);
  } else if (cfg.type === QosPolicerType.T2R3C_2698 || cfg.type === QosPolicerType.T2R3C_4115) {
    if (cir === 0 || eir === 0 || eir < cir || cb === 0n || eb === 0n) return undefined;
    p = computeParams(hz, cir * BYTES_PER_KBIT, eir * BYTES_PER_KBIT, currentLimit, extendedLimit);
  } else {
    return undefined;
  }
  currentLimit = p.currentLimit;
  extendedLimit = p.extendedLimit;
  return {
    singleRate,
    scale: p.scale,
    cirTokensPerPeriod: p.cir,
    pirTokensPerPeriod: p.pir,
    currentLimit,
    currentBucket: currentLimit,
    extendedLimit,
    extendedBucket: extendedLimit,
  };
}

type ApiConfig = Message<typeof msg.policer_add>['infos'];

function fromApi(c: ApiConfig): PolicerConfig {
  return {
    cir: c.cir >>> 0,
    eir: c.eir >>> 0,
    cb: BigInt.asUintN(64, BigInt(c.cb)),
    eb: BigInt.asUintN(64, BigInt(c.eb)),
    rateType: c.rate_type,
    roundType: c.round_type,
    type: c.type,
    colorAware: c.color_aware,
    conform: { type: c.conform_action.type, dscp: c.conform_action.dscp },
    exceed: { type: c.exceed_action.type, dscp: c.exceed_action.dscp },
    violate: { type: c.violate_action.type, dscp: c.violate_action.dscp },
  };
}

/** snprintf (name, sizeof (mp->name) + 1, "%s", mp->name): up to the first NUL. */
const cName = (s: string): string => {
  const nul = s.indexOf('\0');
  return nul < 0 ? s : s.slice(0, nul);
};

export class PolicerPlugin {
  readonly policers = new VppPool<Policer>();
  /** pm->tsc_hz */
  tscHz = DEFAULT_POLICER_TSC_HZ;

  byName(name: string): number | undefined {
    for (const [i, p] of this.policers.entries()) if (p.name === name) return i;
    return undefined;
  }

  /** policer_add */
  add(name: string, config: PolicerConfig): { rv: number; index: number } {
    if (this.byName(name) !== undefined) return { rv: Rv.VALUE_EXIST, index: NONE };
    const hw = policerHw(config, this.tscHz);
    if (!hw) return { rv: Rv.INVALID_VALUE, index: NONE };
    return { rv: 0, index: this.policers.add(() => ({ name, config, hw })) };
  }

  /** policer_del */
  del(index: number): number {
    if (!this.policers.has(index)) return Rv.NO_SUCH_ENTRY;
    this.policers.remove(index);
    return 0;
  }

  /** policer_update */
  update(index: number, config: PolicerConfig): number {
    const p = this.policers.get(index);
    if (!p) return Rv.NO_SUCH_ENTRY;
    const hw = policerHw(config, this.tscHz);
    if (!hw) return Rv.INVALID_VALUE;
    p.config = config;
    p.hw = hw;
    return 0;
  }

  register(d: Dispatcher): void {
    d.on(msg.policer_add, (m, call) => {
      const r = this.add(cName(m.name), fromApi(m.infos));
      call.reply({ retval: r.rv, policer_index: r.index });
    });

    d.on(msg.policer_add_del, (m, call) => {
      const name = cName(m.name);
      if (m.is_add) {
        const r = this.add(name, fromApi(m));
        return call.reply({ retval: r.rv, policer_index: r.index });
      }
      const index = this.byName(name);
      call.reply({ retval: index === undefined ? Rv.NO_SUCH_ENTRY : this.del(index), policer_index: NONE });
    });

    d.on(msg.policer_del, (m, call) => {
      call.reply({ retval: this.del(m.policer_index >>> 0) });
    });

    d.on(msg.policer_update, (m, call) => {
      call.reply({ retval: this.update(m.policer_index >>> 0, fromApi(m.infos)) });
    });

    d.on(msg.policer_dump_v2, (m, call) => {
      if (!call.reg) return;
      const send = (p: Policer): void => {
        const c = p.config;
        call.details(msg.policer_details, {
          name: p.name,
          cir: c.cir,
          eir: c.eir,
          cb: c.cb,
          eb: c.eb,
          rate_type: c.rateType,
          round_type: c.roundType,
          type: c.type,
          conform_action: { type: c.conform.type, dscp: c.conform.dscp },
          exceed_action: { type: c.exceed.type, dscp: c.exceed.dscp },
          violate_action: { type: c.violate.type, dscp: c.violate.dscp },
          single_rate: p.hw.singleRate,
          color_aware: c.colorAware,
          scale: p.hw.scale,
          cir_tokens_per_period: p.hw.cirTokensPerPeriod,
          pir_tokens_per_period: p.hw.pirTokensPerPeriod,
          current_limit: p.hw.currentLimit,
          current_bucket: p.hw.currentBucket,
          extended_limit: p.hw.extendedLimit,
          extended_bucket: p.hw.extendedBucket,
          last_update_time: 0n,
        });
      };
      const index = m.policer_index >>> 0;
      if (index === NONE) {
        for (const p of this.policers.values()) send(p);
      } else {
        const p = this.policers.get(index);
        if (p) send(p);
      }
    });
  }
}
