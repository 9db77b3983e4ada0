/**
 * Interfaces: the sw_interface table, admin/link state, tags, MTU, loopbacks and
 * sw_interface_event subscriptions (src/vnet/interface.c, interface_api.c,
 * ethernet/interface.c in VPP 26.06).
 *
 * Device-specific creation (af_packet, tap, vhost-user, memif) lives in devices.ts and uses
 * `create()` here; IP and L2 state of an interface live in ip.ts and l2.ts, which subscribe to the
 * admin and delete hooks below the way VPP's modules register VNET_SW_INTERFACE_*_FUNCTIONs.
 */
import type { MessageInput } from '../codec/schema.js';
import { msg } from '../messages/index.js';
import type { Dispatcher } from './dispatcher.js';
import { Rv } from './retval.js';
import type { Vpp } from './vpp.js';
import { VppPool } from './vpp-pool.js';

export type InterfaceKind = 'local' | 'loopback' | 'af_packet' | 'tap' | 'vhost_user' | 'memif' | 'ethernet';

export interface SimInterface {
  readonly swIfIndex: number;
  readonly kind: InterfaceKind;
  /** format_vnet_sw_interface_name */
  readonly name: string;
  /** The device class name (`interface_dev_type`). */
  readonly devType: string;
  /** Ethernet interfaces have an L2 address; local0 has none. */
  mac: Buffer | undefined;
  adminUp: boolean;
  linkUp: boolean;
  /** hi->max_frame_size - hi->frame_overhead */
  linkMtu: number;
  /** sw MTUs: L3, IP4, IP6, MPLS */
  mtu: [number, number, number, number];
  linkSpeed: number;
  tag: string;
  /** Device instance (loopback instance number, af_packet pool index...). */
  readonly instance: number;
  /** VNET_FLOOD_CLASS_*: loopbacks do not get flooded to unless they are a BVI. */
  floodClass: 'normal' | 'no_flood' | 'bvi';
}

/** link_state_process event bits (interface_api.c `enum api_events`). */
export const IfEvent = {
  LINK_UP: 1 << 1,
  LINK_DOWN: 1 << 2,
  ADMIN_UP: 1 << 3,
  ADMIN_DOWN: 1 << 4,
  ADD: 1 << 5,
  DEL: 1 << 6,
} as const;

/** ethernet_main.default_mtu (ethernet/interface.c): 9000 unless configured. */
export const DEFAULT_MTU = 9000;
/** LOOPBACK_MAX_INSTANCE (ethernet/interface.c) */
const LOOPBACK_MAX_INSTANCE = 16 * 1024;

interface EventRegistration {
  readonly clientIndex: number;
  /** Raw pid bytes as the client sent them (VPP copies them into each event). */
  readonly pid: number;
}

export class Interfaces {
  readonly #vpp: Vpp;
  readonly pool = new VppPool<SimInterface>();
  readonly #loopbackInstances = new Set<number>();
  /** Called on admin up/down with the new state, in registration order (ip4, ip6, ...). */
  readonly adminHooks: ((sw: SimInterface, up: boolean) => void)[] = [];
  /** Called when an interface is being deleted, before it leaves the pool. */
  readonly deleteHooks: ((sw: SimInterface) => void)[] = [];
  /**
   * Called after sw_interface_set_mac_address changed an interface's MAC, with the old one (the
   * device classes' mac_addr_change_function: the Loopback class moves a BVI's L2 FIB entry).
   */
  readonly macHooks: ((sw: SimInterface, old: Buffer) => void)[] = [];
  /** want_interface_events registrations (a pool, keyed by client_index). */
  readonly #eventRegs = new VppPool<EventRegistration>();
  readonly #eventRegByClient = new Map<number, number>();
  /** Events waiting for the link-state process, by sw_if_index. */
  readonly #pending = new Map<number, number>();

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
    // local0: sw_if_index 0, no L2 address, MTUs 0, admin down (vnet_interface_init)
    this.pool.add((swIfIndex) => ({
      swIfIndex,
      kind: 'local',
      name: 'local0',
      devType: 'local',
      mac: undefined,
      adminUp: false,
      linkUp: false,
      linkMtu: 0,
      mtu: [0, 0, 0, 0],
      linkSpeed: 0,
      tag: '',
      instance: 0,
      floodClass: 'normal',
    }));
  }

  get(swIfIndex: number): SimInterface | undefined {
    return this.pool.get(swIfIndex >>> 0);
  }

  /** vnet_sw_if_index_is_api_valid */
  isValid(swIfIndex: number): boolean {
    return this.pool.has(swIfIndex >>> 0);
  }

  byName(name: string): SimInterface | undefined {
    for (const i of this.pool.values()) if (i.name === name) return i;
    return undefined;
  }

  /**
   * vnet_eth_register_interface and friends: a new ethernet-like interface, admin down, MTU
   * 9000, link as the device sets it. Signals the ADD (and LINK_UP) events.
   */
  create(spec: {
    kind: InterfaceKind;
    name: (swIfIndex: number) => string;
    devType: string;
    mac: Buffer | undefined;
    linkUp: boolean;
    instance: number;
    linkMtu?: number;
    floodClass?: SimInterface['floodClass'];
  }): SimInterface {
    let created: SimInterface | undefined;
    this.pool.add((swIfIndex) => {
      created = {
        swIfIndex,
        kind: spec.kind,
        name: spec.name(swIfIndex),
        devType: spec.devType,
        mac: spec.mac,
        adminUp: false,
        linkUp: spec.linkUp,
        linkMtu: spec.linkMtu ?? DEFAULT_MTU,
        mtu: [spec.linkMtu ?? DEFAULT_MTU, 0, 0, 0],
        linkSpeed: 0,
        tag: '',
        instance: spec.instance,
        floodClass: spec.floodClass ?? 'normal',
      };
      return created;
    });
    const sw = created as SimInterface;
    this.signal(sw.swIfIndex, IfEvent.ADD | (sw.linkUp ? IfEvent.LINK_UP : 0));
    return sw;
  }

  /**
   * vnet_delete_hw_interface: link down, admin down (modules remove routes), then the delete
   * callbacks (addresses, bridge membership...), then the index returns to the pool.
   */
  delete(sw: SimInterface): void {
    this.setLink(sw, false);
    this.setAdmin(sw, false);
    for (const h of this.deleteHooks) h(sw);
    this.signal(sw.swIfIndex, IfEvent.DEL);
    if (sw.kind === 'loopback') this.#loopbackInstances.delete(sw.instance);
    this.pool.remove(sw.swIfIndex);
  }

  /** vnet_sw_interface_set_flags: acts (and signals) only on a change. */
  setAdmin(sw: SimInterface, up: boolean): void {
    if (sw.adminUp === up) return;
    sw.adminUp = up;
    // The device class reacts first: simulated ethernet (loopback) follows admin with its link.
    if (sw.kind === 'loopback') this.setLink(sw, up);
    this.signal(sw.swIfIndex, up ? IfEvent.ADMIN_UP : IfEvent.ADMIN_DOWN);
    for (const h of this.adminHooks) h(sw, up);
  }

  /** vnet_hw_interface_set_flags: link callbacks only on a change. */
  setLink(sw: SimInterface, up: boolean): void {
    if (sw.linkUp === up) return;
    sw.linkUp = up;
    this.signal(sw.swIfIndex, up ? IfEvent.LINK_UP : IfEvent.LINK_DOWN);
  }

  signal(swIfIndex: number, bits: number): void {
    this.#pending.set(swIfIndex, (this.#pending.get(swIfIndex) ?? 0) | bits);
  }

  /**
   * link_state_process: one sw_interface_event per interface with pending events (ascending
   * sw_if_index), to every registration in pool order. The flags report the events, not the
   * state: ADMIN_UP/LINK_UP bits that happened since the last run.
   */
  flushEvents(): void {
    if (this.#pending.size === 0) return;
    const pending = [...this.#pending.entries()].sort((a, b) => a[0] - b[0]);
    this.#pending.clear();
    for (const [swIfIndex, bits] of pending) {
      for (const r of this.#eventRegs.values()) {
        const reg = this.#vpp.registrationFor(r.clientIndex);
        if (!reg) continue;
        const frame = this.#vpp.dispatcher.encode(
          msg.sw_interface_event,
          {
            pid: r.pid,
            sw_if_index: swIfIndex,
            flags: (bits & IfEvent.ADMIN_UP ? 1 : 0) | (bits & IfEvent.LINK_UP ? 2 : 0),
            deleted: (bits & IfEvent.DEL) !== 0,
          },
          { clientIndex: r.clientIndex },
        );
        if (frame) reg.conn.push(frame);
      }
    }
  }

  /** vl_api_want_interface_events_t_reaper */
  reap(clientIndex: number): void {
    const at = this.#eventRegByClient.get(clientIndex);
    if (at === undefined) return;
    this.#eventRegs.remove(at);
    this.#eventRegByClient.delete(clientIndex);
  }

  eventSubscribers(): number[] {
    return [...this.#eventRegs.values()].map((r) => r.clientIndex);
  }

  /** loopback_instance_alloc */
  #allocLoopbackInstance(isSpecified: boolean, want: number): number {
    if (!isSpecified) {
      let bit = 0;
      while (this.#loopbackInstances.has(bit)) bit++;
      if (bit >= LOOPBACK_MAX_INSTANCE) return -1;
      this.#loopbackInstances.add(bit);
      return bit;
    }
    if (want >= LOOPBACK_MAX_INSTANCE || this.#loopbackInstances.has(want)) return -1;
    this.#loopbackInstances.add(want);
    return want;
  }

  /** vnet_create_loopback_interface */
  createLoopback(mac: Buffer, isSpecified: boolean, userInstance: number): { rv: number; swIfIndex: number } {
    const instance = this.#allocLoopbackInstance(isSpecified, userInstance);
    if (instance < 0) return { rv: Rv.INVALID_REGISTRATION, swIfIndex: 0xffffffff };
    // All-zero MAC: de:ad:00:00:00:<instance>
    const address = mac.every((b) => b === 0)
      ? Buffer.from([0xde, 0xad, 0, 0, 0, instance & 0xff])
      : Buffer.from(mac);
    const sw = this.create({
      kind: 'loopback',
      name: () => `loop${instance}`,
      devType: 'Loopback',
      mac: address,
      linkUp: false,
      instance,
      floodClass: 'no_flood',
    });
    return { rv: 0, swIfIndex: sw.swIfIndex };
  }

  register(d: Dispatcher): void {
    d.on(msg.sw_interface_dump, (m, call) => {
      if (!call.reg) return;
      const send = (sw: SimInterface): void => call.details(msg.sw_interface_details, this.details(sw));
      const sw_if_index = m.sw_if_index >>> 0;
      // A single interface only when no filter and the index is neither ~0 nor 0: index 0 dumps all.
      if (!m.name_filter_valid && sw_if_index !== 0xffffffff && sw_if_index !== 0) {
        const sw = this.get(sw_if_index);
        if (sw) send(sw);
        return;
      }
      const filter = m.name_filter_valid ? m.name_filter.toLowerCase() : undefined;
      for (const sw of this.pool.values()) {
        if (filter !== undefined && !sw.name.toLowerCase().includes(filter)) continue; // strcasestr
        send(sw);
      }
    });

    d.on(msg.sw_interface_set_flags, (m, call) => {
      const sw = this.get(m.sw_if_index);
      if (!sw) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      this.setAdmin(sw, (m.flags & 1) !== 0);
      call.reply({ retval: 0 });
    });

    d.on(msg.sw_interface_tag_add_del, (m, call) => {
      const sw = this.get(m.sw_if_index);
      if (!sw) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      if (m.is_add) {
        if (m.tag.length === 0) return call.reply({ retval: Rv.INVALID_VALUE });
        sw.tag = m.tag;
      } else {
        sw.tag = '';
      }
      call.reply({ retval: 0 });
    });

    d.on(msg.sw_interface_set_mtu, (m, call) => {
      const sw = this.get(m.sw_if_index);
      if (!sw) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      // vnet_sw_interface_set_protocol_mtu: the four values as given
      sw.mtu = [m.mtu[0] ?? 0, m.mtu[1] ?? 0, m.mtu[2] ?? 0, m.mtu[3] ?? 0];
      call.reply({ retval: 0 });
    });

    d.on(msg.hw_interface_set_mtu, (m, call) => {
      const sw = this.get(m.sw_if_index);
      if (!sw) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      // Only ethernet interfaces (not local0) have a settable frame size.
      if (!sw.mac) return call.reply({ retval: Rv.FEATURE_DISABLED });
      // vnet_hw_interface_set_max_frame_size: nothing to do when unchanged; otherwise the driver
      // must support it (ethernet_set_max_frame_size): loopback and vhost-user do not.
      if (m.mtu === sw.linkMtu) return call.reply({ retval: 0 });
      if (sw.kind === 'loopback' || sw.kind === 'vhost_user') return call.reply({ retval: Rv.UNSUPPORTED });
      // Then every sw interface of the hw interface gets the new L3 MTU.
      // GUESS: af_packet's callback also sets the host interface's MTU; not done here.
      sw.linkMtu = m.mtu;
      sw.mtu[0] = m.mtu;
      call.reply({ retval: 0 });
    });

    d.on(msg.sw_interface_set_mac_address, (m, call) => {
      const sw = this.get(m.sw_if_index);
      if (!sw) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      if (!sw.mac) return call.reply({ retval: Rv.UNIMPLEMENTED });
      const old = sw.mac;
      sw.mac = Buffer.from(m.mac_address.split(':').map((h) => parseInt(h, 16)));
      for (const h of this.macHooks) h(sw, old);
      call.reply({ retval: 0 });
    });

    d.on(msg.want_interface_events, (m, call) => {
      // pub_sub_handler (api_helper_macros.h)
      const at = this.#eventRegByClient.get(m.client_index);
      let rv = 0;
      if (at !== undefined) {
        if (m.enable_disable) {
          rv = Rv.INVALID_REGISTRATION;
        } else {
          this.#eventRegs.remove(at);
          this.#eventRegByClient.delete(m.client_index);
        }
      } else if (m.enable_disable === 0) {
        rv = Rv.INVALID_REGISTRATION;
      } else {
        const index = this.#eventRegs.add(() => ({ clientIndex: m.client_index, pid: m.pid }));
        this.#eventRegByClient.set(m.client_index, index);
      }
      call.reply({ retval: rv });
    });

    d.on(msg.create_loopback_instance, (m, call) => {
      const mac = Buffer.from(m.mac_address.split(':').map((h) => parseInt(h, 16)));
      const r = this.createLoopback(mac, m.is_specified, m.user_instance);
      call.reply({ retval: r.rv, sw_if_index: r.swIfIndex });
    });

    d.on(msg.delete_loopback, (m, call) => {
      const sw = this.get(m.sw_if_index);
      if (!sw || sw.kind !== 'loopback') return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      this.delete(sw);
      call.reply({ retval: 0 });
    });
  }

  /** send_sw_interface_details */
  details(sw: SimInterface): MessageInput<typeof msg.sw_interface_details> {
    return {
      sw_if_index: sw.swIfIndex,
      sup_sw_if_index: sw.swIfIndex,
      l2_address: sw.mac ? macText(sw.mac) : '00:00:00:00:00:00',
      flags: (sw.adminUp ? 1 : 0) | (sw.linkUp ? 2 : 0),
      type: 0,
      link_duplex: 0,
      link_speed: sw.linkSpeed,
      link_mtu: sw.linkMtu,
      mtu: sw.mtu,
      vtr_op: 0,
      interface_name: sw.name.slice(0, 63),
      interface_dev_type: sw.devType.slice(0, 63),
      tag: sw.tag.slice(0, 63),
    };
  }
}

function macText(b: Buffer): string {
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join(':');
}
