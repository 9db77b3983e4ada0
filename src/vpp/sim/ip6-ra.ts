/**
 * IPv6 router advertisement configuration, per IPv6 link, following VPP 26.06
 * src/vnet/ip6-nd/ip6_ra.c (ip6_ra_link_enable, ip6_ra_delegate_disable, ip6_ra_config,
 * ip6_ra_prefix) and ip6_nd_api.c (the handlers and sw_interface_ip6nd_ra_details).
 *
 * The RA state is an ip6_link delegate: created with its defaults when IPv6 goes on on an ethernet
 * interface, and dropped with every prefix when IPv6 goes off. The simulator sends no RAs, so the
 * counters stay 0 and the times VPP reports relative to "now" are those of a clock that does not
 * move (a prefix's `*_lifetime_expires` is its lifetime; GUESS-free only for an idle VPP: a real
 * one reports a few milliseconds less).
 */
import type { Message, MessageInput } from '../codec/schema.js';
import { msg } from '../messages/index.js';
import type { Dispatcher } from './dispatcher.js';
import type { SimInterface } from './interfaces.js';
import { apiAddress, fromApiAddress } from './ip-addr.js';
import { Rv } from './retval.js';
import type { Vpp } from './vpp.js';
import { VppPool } from './vpp-pool.js';

const DEF_MAX_RADV_INTERVAL = 200;
const DEF_MIN_RADV_INTERVAL = 0.75 * DEF_MAX_RADV_INTERVAL;
const DEF_CURR_HOP_LIMIT = 64;
const DEF_DEF_RTR_LIFETIME = 3 * DEF_MAX_RADV_INTERVAL;
const MAX_DEF_RTR_LIFETIME = 9000;
const MAX_INITIAL_RTR_ADVERT_INTERVAL = 16;
const MAX_INITIAL_RTR_ADVERTISEMENTS = 3;
/** ip6_ra.h */
const DEF_ADV_VALID_LIFETIME = 2592000;
const DEF_ADV_PREF_LIFETIME = 604800;
const INFINITE = 0xffffffff;

interface RaPrefix {
  readonly prefix: Buffer;
  readonly prefixLen: number;
  onLink: boolean;
  autonomous: boolean;
  validLifetime: number;
  prefLifetime: number;
  enabled: boolean;
  decrementLifetime: boolean;
}

interface RaLink {
  readonly swIfIndex: number;
  sendRadv: boolean;
  managed: boolean;
  other: boolean;
  linkLayerAddress: boolean;
  sendUnicast: boolean;
  cease: boolean;
  maxInterval: number;
  minInterval: number;
  routerLifetime: number;
  initialCount: number;
  initialInterval: number;
  readonly curHopLimit: number;
  /** The interface's IPv6 MTU when IPv6 was enabled; never updated afterwards. */
  readonly linkMtu: number;
  readonly prefixes: VppPool<RaPrefix>;
  /** address_to_prefix_index: keyed by the prefix's address only. */
  readonly prefixIndex: Map<string, number>;
}

type RaConfig = Message<typeof msg.sw_interface_ip6nd_ra_config>;
type RaPrefixMsg = Message<typeof msg.sw_interface_ip6nd_ra_prefix>;

export class Ip6Ra {
  readonly #vpp: Vpp;
  readonly #links = new VppPool<RaLink>();
  readonly #bySw = new Map<number, number>();

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
    vpp.ip6Link.hooks.push({
      enable: (sw) => this.#linkEnable(sw),
      disable: (sw) => this.#linkDisable(sw),
    });
  }

  /** ip6_ra_link_enable: ethernet interfaces only (the simulator's all have a MAC). */
  #linkEnable(sw: SimInterface): void {
    if (!sw.mac) return;
    const at = this.#links.add(() => ({
      swIfIndex: sw.swIfIndex,
      sendRadv: false,
      managed: false,
      other: false,
      linkLayerAddress: true,
      sendUnicast: false,
      cease: false,
      maxInterval: DEF_MAX_RADV_INTERVAL,
      minInterval: DEF_MIN_RADV_INTERVAL,
      routerLifetime: DEF_DEF_RTR_LIFETIME,
      initialCount: MAX_INITIAL_RTR_ADVERTISEMENTS,
      initialInterval: MAX_INITIAL_RTR_ADVERT_INTERVAL,
      curHopLimit: DEF_CURR_HOP_LIMIT,
      // vnet_sw_interface_get_mtu (VNET_MTU_IP6): the IPv6 MTU, else the L3 one, else 9000
      linkMtu: sw.mtu[2] || sw.mtu[0] || 9000,
      prefixes: new VppPool<RaPrefix>(),
      prefixIndex: new Map(),
    }));
    this.#bySw.set(sw.swIfIndex, at);
  }

  /** ip6_ra_delegate_disable: the config and every prefix go. */
  #linkDisable(sw: SimInterface): void {
    const at = this.#bySw.get(sw.swIfIndex);
    if (at === undefined) return;
    this.#links.remove(at);
    this.#bySw.delete(sw.swIfIndex);
  }

  #get(swIfIndex: number): RaLink | undefined {
    const at = this.#bySw.get(swIfIndex);
    return at === undefined ? undefined : this.#links.get(at);
  }

  /** ip6_ra_config, with the API's flags (`== 1`) and `default_router` as use_lifetime. */
  config(m: RaConfig): number {
    const ra = this.#get(m.sw_if_index);
    if (!ra) return Rv.IP6_NOT_ENABLED;
    const isNo = m.is_no;
    // "Start off believing that we're going to send radv's": before any check, so a rejected
    // config still turns sending on.
    ra.sendRadv = true;
    let max = m.max_interval;
    let min = m.min_interval;
    // a u32 parameter: .75 * max truncated
    if (max !== 0 && min === 0) min = Math.floor(0.75 * max);
    max = max !== 0 ? (isNo ? DEF_MAX_RADV_INTERVAL : max) : ra.maxInterval;
    min = min !== 0 ? (isNo ? DEF_MIN_RADV_INTERVAL : min) : ra.minInterval;
    let lifetime = m.default_router === 1 ? (isNo ? DEF_DEF_RTR_LIFETIME : m.lifetime) : ra.routerLifetime;
    if (lifetime) {
      if (lifetime > MAX_DEF_RTR_LIFETIME) lifetime = MAX_DEF_RTR_LIFETIME;
      if (lifetime <= max) return Rv.INVALID_VALUE;
    }
    if (min !== 0 && (min > 0.75 * max || min < 3)) return Rv.INVALID_VALUE;
    if (
      m.initial_count > MAX_INITIAL_RTR_ADVERTISEMENTS ||
      m.initial_interval > MAX_INITIAL_RTR_ADVERT_INTERVAL
    )
      return Rv.INVALID_VALUE;
    const flag = (v: number, ifSet: boolean, old: boolean): boolean => (v === 1 ? ifSet : old);
    ra.sendRadv = flag(m.suppress, isNo, ra.sendRadv);
    ra.managed = flag(m.managed, !isNo, ra.managed);
    ra.other = flag(m.other, !isNo, ra.other);
    ra.linkLayerAddress = flag(m.ll_option, isNo, ra.linkLayerAddress);
    ra.sendUnicast = flag(m.send_unicast, !isNo, ra.sendUnicast);
    ra.cease = flag(m.cease, !isNo, ra.cease);
    ra.minInterval = min;
    ra.maxInterval = max;
    ra.routerLifetime = lifetime;
    if (m.initial_count !== 0) ra.initialCount = isNo ? MAX_INITIAL_RTR_ADVERTISEMENTS : m.initial_count;
    if (m.initial_interval !== 0)
      ra.initialInterval = isNo ? MAX_INITIAL_RTR_ADVERT_INTERVAL : m.initial_interval;
    if (m.cease === 1 && isNo) ra.sendRadv = true;
    return 0;
  }

  /** ip6_ra_prefix: add, change or (is_no) delete one advertised prefix. */
  prefix(m: RaPrefixMsg): number {
    const ra = this.#get(m.sw_if_index);
    if (!ra) return Rv.IP6_NOT_ENABLED;
    const addr = fromApiAddress(m.prefix.address);
    const key = addr.toString('hex');
    const at = ra.prefixIndex.get(key);
    let p = at === undefined ? undefined : ra.prefixes.get(at);
    if (m.is_no) {
      if (!p || at === undefined) return Rv.INVALID_VALUE;
      if (p.prefixLen !== m.prefix.len) return Rv.INVALID_VALUE_2;
      ra.prefixes.remove(at);
      ra.prefixIndex.delete(key);
      return 0;
    }
    if (!p) {
      const fresh: RaPrefix = {
        prefix: Buffer.from(addr),
        prefixLen: m.prefix.len,
        onLink: true,
        autonomous: true,
        validLifetime: DEF_ADV_VALID_LIFETIME,
        prefLifetime: DEF_ADV_PREF_LIFETIME,
        enabled: true,
        decrementLifetime: true,
      };
      ra.prefixIndex.set(
        key,
        ra.prefixes.add(() => fresh),
      );
      // use_default only counts for a new prefix: the defaults above, the flags ignored
      if (m.use_default) return 0;
      p = fresh;
    } else if (p.prefixLen !== m.prefix.len) {
      return Rv.INVALID_VALUE_2;
    }
    // an existing prefix takes the request's lifetimes, use_default or not (0 with use_default)
    if (m.val_lifetime === INFINITE || m.pref_lifetime === INFINITE) {
      p.validLifetime = INFINITE;
      p.prefLifetime = INFINITE;
      p.decrementLifetime = false;
    } else {
      p.validLifetime = m.val_lifetime;
      p.prefLifetime = m.pref_lifetime;
    }
    p.enabled = !m.no_advertise;
    p.onLink = !(m.off_link || m.no_onlink);
    p.autonomous = !m.no_autoconfig;
    return 0;
  }

  #details(ra: RaLink): MessageInput<typeof msg.sw_interface_ip6nd_ra_details> {
    const prefixes = [...ra.prefixes.values()].map((p) => ({
      prefix: { address: apiAddress(p.prefix), len: p.prefixLen },
      onlink_flag: p.onLink,
      autonomous_flag: p.autonomous,
      val_lifetime: p.validLifetime,
      pref_lifetime: p.prefLifetime,
      valid_lifetime_expires: p.validLifetime === INFINITE ? 0 : p.validLifetime,
      pref_lifetime_expires: p.prefLifetime === INFINITE ? 0 : p.prefLifetime,
      decrement_lifetime_flag: p.decrementLifetime,
      no_advertise: !p.enabled,
    }));
    return {
      sw_if_index: ra.swIfIndex,
      cur_hop_limit: ra.curHopLimit,
      adv_managed_flag: ra.managed,
      adv_other_flag: ra.other,
      adv_router_lifetime: ra.routerLifetime,
      adv_neighbor_reachable_time: 0,
      adv_retransmit_interval: 0,
      adv_link_mtu: ra.linkMtu,
      send_radv: ra.sendRadv,
      cease_radv: ra.cease,
      send_unicast: ra.sendUnicast,
      adv_link_layer_address: ra.linkLayerAddress,
      max_radv_interval: ra.maxInterval,
      min_radv_interval: ra.minInterval,
      last_radv_time: 0,
      last_multicast_time: 0,
      next_multicast_time: 0,
      initial_adverts_count: ra.initialCount,
      initial_adverts_interval: ra.initialInterval,
      // (initial_adverts_sent == 0), and every change resets it to initial_adverts_count - 1
      initial_adverts_sent: ra.initialCount - 1 === 0,
      n_advertisements_sent: 0,
      n_solicitations_rcvd: 0,
      n_solicitations_dropped: 0,
      prefixes,
    };
  }

  register(d: Dispatcher): void {
    d.on(msg.sw_interface_ip6nd_ra_config, (m, call) => {
      if (!this.#vpp.interfaces.isValid(m.sw_if_index)) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      call.reply({ retval: this.config(m) });
    });

    d.on(msg.sw_interface_ip6nd_ra_prefix, (m, call) => {
      if (!this.#vpp.interfaces.isValid(m.sw_if_index)) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      call.reply({ retval: this.prefix(m) });
    });

    d.on(msg.sw_interface_ip6nd_ra_dump, (m, call) => {
      if (!call.reg) return;
      const sw = m.sw_if_index >>> 0;
      const links = sw === 0xffffffff ? [...this.#links.values()] : [this.#get(sw)];
      for (const ra of links) {
        if (ra) call.details(msg.sw_interface_ip6nd_ra_details, this.#details(ra));
      }
    });
  }
}
