/**
 * Device interfaces: af_packet (plugins/af_packet), tap v3 (plugins/tap), vhost-user
 * (plugins/vhost) and memif (plugins/memif), as VPP 26.06 creates, names, dumps and deletes them.
 * Host-side effects go through HostOps (host.ts).
 */
import { msg } from '../messages/index.js';
import type { Dispatcher } from './dispatcher.js';
import type { HostOps, TapSpec } from './host.js';
import type { SimInterface } from './interfaces.js';
import { macBytes } from './ip-addr.js';
import { Rv } from './retval.js';
import type { Vpp } from './vpp.js';
import { VppPool } from './vpp-pool.js';

/** A random locally administered MAC the way VPP makes one: 02:fe + 4 random bytes. */
function randomMac(): Buffer {
  const m = Buffer.alloc(6);
  m[0] = 0x02;
  m[1] = 0xfe;
  for (let i = 2; i < 6; i++) m[i] = Math.floor(Math.random() * 256);
  return m;
}

function macText(b: Buffer): string {
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join(':');
}

export interface AfPacketIf {
  readonly hostIfName: string;
  readonly swIfIndex: number;
  readonly mode: number;
  readonly flags: number;
}

export interface TapIf {
  readonly id: number;
  readonly swIfIndex: number;
  readonly hostIfName: string;
  readonly netns: string | undefined;
  readonly hostMac: Buffer;
  readonly hostMtu: number;
  readonly ip4: { addr: string; len: number } | undefined;
  readonly ip6: { addr: string; len: number } | undefined;
  readonly bridge: string | undefined;
  readonly flags: number;
  readonly rxRing: number;
  readonly txRing: number;
}

export interface VhostUserIf {
  readonly swIfIndex: number;
  readonly sockFilename: string;
  readonly isServer: boolean;
  readonly server: { close(): void } | undefined;
}

export interface MemifSocket {
  readonly socketId: number;
  readonly filename: string;
  refs: number;
  isListener: boolean;
}

export interface MemifIf {
  readonly swIfIndex: number;
  readonly id: number;
  readonly socketId: number;
  readonly isMaster: boolean;
  readonly mode: number;
  readonly ringSize: number;
  readonly bufferSize: number;
  readonly zeroCopy: boolean;
}

const TAP = { GSO: 1, CSUM_OFFLOAD: 2, PERSIST: 4, ATTACH: 8, TUN: 16 } as const;
/** TAP_MAX_INSTANCE */
const TAP_MAX_INSTANCE = 1024;
/** vlib_unix_get_runtime_dir () for a default VPP */
const RUNTIME_DIR = '/run/vpp';

export class Devices {
  readonly #vpp: Vpp;
  readonly #host: HostOps;
  readonly afPacket = new VppPool<AfPacketIf>();
  readonly taps = new VppPool<TapIf>();
  readonly vhost = new VppPool<VhostUserIf>();
  readonly memifSockets = new VppPool<MemifSocket>();
  readonly memifs = new VppPool<MemifIf>();
  #memifSeed = 0;
  /** Kernel taps this process made, persistent or not (for restart/close). */
  readonly kernelTaps: { netns: string | undefined; name: string; persist: boolean }[] = [];

  constructor(vpp: Vpp, host: HostOps) {
    this.#vpp = vpp;
    this.#host = host;
    // memif_init: socket id 0 is the default socket file
    this.memifSockets.add(() => ({
      socketId: 0,
      filename: `${RUNTIME_DIR}/memif.sock`,
      refs: 0,
      isListener: false,
    }));
  }

  #swOf<T extends { swIfIndex: number }>(pool: VppPool<T>, swIfIndex: number): [number, T] | undefined {
    for (const e of pool.entries()) if (e[1].swIfIndex === swIfIndex) return e;
    return undefined;
  }

  /** af_packet_create_if */
  createAfPacket(a: {
    hostIfName: string;
    mode: number;
    mac: Buffer | undefined;
    flags: number;
    preexisting?: boolean;
  }): { rv: number; swIfIndex: number } {
    for (const x of this.afPacket.values())
      if (x.hostIfName === a.hostIfName) return { rv: Rv.IF_ALREADY_EXISTS, swIfIndex: x.swIfIndex };
    const check = this.#vpp.options.checkHostInterfaces && !a.preexisting;
    if (check && !this.#host.interfaceExists(a.hostIfName)) return { rv: Rv.INVALID_INTERFACE, swIfIndex: 0 };
    if (check) this.#host.setUp(a.hostIfName);
    let sw: SimInterface | undefined;
    this.afPacket.add((index) => {
      sw = this.#vpp.interfaces.create({
        kind: 'af_packet',
        name: () => `host-${a.hostIfName}`,
        devType: 'af-packet',
        // IP mode registers a non-ethernet interface: no L2 address
        mac: a.mode === 2 ? undefined : (a.mac ?? randomMac()),
        linkUp: true,
        instance: index,
      });
      return { hostIfName: a.hostIfName, swIfIndex: sw.swIfIndex, mode: a.mode, flags: a.flags };
    });
    return { rv: 0, swIfIndex: (sw as SimInterface).swIfIndex };
  }

  /** tap_create_if */
  createTap(t: {
    id: number;
    mac: Buffer | undefined;
    hostIfName: string | undefined;
    netns: string | undefined;
    hostMac: Buffer | undefined;
    hostMtu: number | undefined;
    ip4: { addr: string; len: number } | undefined;
    ip6: { addr: string; len: number } | undefined;
    ip4Gw: string | undefined;
    ip6Gw: string | undefined;
    bridge: string | undefined;
    flags: number;
    rxRing: number;
    txRing: number;
  }): { rv: number; swIfIndex: number } {
    const fail = (rv: number): { rv: number; swIfIndex: number } => ({ rv, swIfIndex: 0xffffffff });
    let id = t.id >>> 0;
    const used = new Set([...this.taps.values()].map((x) => x.id));
    if (id !== 0xffffffff) {
      if (used.has(id)) return fail(Rv.INVALID_INTERFACE);
    } else {
      id = 0;
      while (used.has(id)) id++;
    }
    if (id > TAP_MAX_INSTANCE) return fail(Rv.UNSPECIFIED);
    if (t.flags & TAP.ATTACH && t.hostIfName === undefined) return fail(Rv.NO_MATCHING_INTERFACE);
    if (t.netns !== undefined && !this.#host.netnsExists(t.netns)) return fail(Rv.SYSCALL_ERROR_2);
    // GUESS: without host_if_name the kernel names the device "tap%d"; we take the first free
    // "tap<n>" among the taps this process made.
    let name = t.hostIfName;
    if (name === undefined) {
      let n = 0;
      while (this.kernelTaps.some((k) => k.name === `tap${n}` && k.netns === t.netns)) n++;
      name = `tap${n}`;
    }
    const persist = (t.flags & TAP.PERSIST) !== 0;
    const spec: TapSpec = {
      netns: t.netns,
      name,
      persist,
      attach: (t.flags & TAP.ATTACH) !== 0,
      tun: (t.flags & TAP.TUN) !== 0,
      ...(t.hostMtu !== undefined ? { mtu: t.hostMtu } : {}),
      ...(t.ip4 ? { ip4: `${t.ip4.addr}/${t.ip4.len}` } : {}),
      ...(t.ip6 ? { ip6: `${t.ip6.addr}/${t.ip6.len}` } : {}),
      ...(t.ip4Gw !== undefined ? { ip4Gw: t.ip4Gw } : {}),
      ...(t.ip6Gw !== undefined ? { ip6Gw: t.ip6Gw } : {}),
      ...(t.bridge !== undefined ? { bridge: t.bridge } : {}),
    };
    // TUNSETIFF (and TUNSETPERSIST): the kernel device exists from here on
    if (!this.#host.createTap(spec)) return fail(Rv.SYSCALL_ERROR_3);
    const drop = (): void => {
      // closing the fds removes a non-persistent device
      if (!persist) this.#host.deleteTap(t.netns, name);
      else if (!this.kernelTaps.some((k) => k.name === name && k.netns === t.netns))
        this.kernelTaps.push({ netns: t.netns, name, persist });
    };
    // open ("/dev/vhost-net")
    if (!this.#vpp.options.vhostNet) {
      drop();
      return fail(Rv.SYSCALL_ERROR_1);
    }
    const hostMac = t.hostMac && !t.hostMac.every((x) => x === 0) ? t.hostMac : randomMac();
    const err = this.#host.configureTap({ ...spec, ...(spec.tun ? {} : { mac: macText(hostMac) }) });
    if (err !== undefined) {
      drop();
      return fail(Rv.NETLINK_ERROR);
    }
    this.kernelTaps.push({ netns: t.netns, name, persist });
    let sw: SimInterface | undefined;
    this.taps.add(() => {
      sw = this.#vpp.interfaces.create({
        kind: 'tap',
        name: () => (spec.tun ? `tun${id}` : `tap${id}`),
        devType: 'tap',
        mac: spec.tun ? undefined : (t.mac ?? randomMac()),
        linkUp: true,
        instance: id,
      });
      return {
        id,
        swIfIndex: sw.swIfIndex,
        hostIfName: name,
        netns: t.netns,
        hostMac,
        hostMtu: t.hostMtu ?? 0,
        ip4: t.ip4,
        ip6: t.ip6,
        bridge: t.bridge,
        flags: t.flags,
        rxRing: t.rxRing === 0 ? 256 : t.rxRing,
        txRing: t.txRing === 0 ? 256 : t.txRing,
      };
    });
    return { rv: 0, swIfIndex: (sw as SimInterface).swIfIndex };
  }

  /** Closes what VPP held open: non-persistent taps disappear from the kernel. */
  releaseHost(): void {
    for (const k of this.kernelTaps) if (!k.persist) this.#host.deleteTap(k.netns, k.name);
    for (const v of this.vhost.values()) v.server?.close();
  }

  register(d: Dispatcher): void {
    const ifs = this.#vpp.interfaces;

    d.on(msg.af_packet_create_v3, (m, call) => {
      if (m.mode !== 1 && m.mode !== 2)
        return call.reply({ retval: Rv.INVALID_VALUE, sw_if_index: 0xffffffff });
      const r = this.createAfPacket({
        hostIfName: m.host_if_name,
        mode: m.mode,
        mac: m.use_random_hw_addr ? undefined : macBytes(m.hw_addr),
        flags: m.flags,
      });
      call.reply({ retval: r.rv, sw_if_index: r.swIfIndex });
    });

    d.on(msg.af_packet_delete, (m, call) => {
      const e = [...this.afPacket.entries()].find(([, x]) => x.hostIfName === m.host_if_name);
      if (!e) return call.reply({ retval: Rv.SYSCALL_ERROR_1 });
      const sw = ifs.get(e[1].swIfIndex);
      if (sw) ifs.delete(sw);
      this.afPacket.remove(e[0]);
      call.reply({ retval: 0 });
    });

    d.on(msg.af_packet_dump, (_m, call) => {
      if (!call.reg) return;
      for (const a of this.afPacket.values())
        call.details(msg.af_packet_details, {
          sw_if_index: a.swIfIndex,
          host_if_name: a.hostIfName.slice(0, 63),
        });
    });

    d.on(msg.tap_create_v3, (m, call) => {
      if (!call.reg) return;
      const r = this.createTap({
        id: m.id,
        mac: m.use_random_mac ? undefined : macBytes(m.mac_address),
        hostIfName: m.host_if_name_set ? m.host_if_name : undefined,
        netns: m.host_namespace_set ? m.host_namespace : undefined,
        hostMac: m.host_mac_addr_set ? macBytes(m.host_mac_addr) : undefined,
        hostMtu: m.host_mtu_set ? m.host_mtu_size : undefined,
        ip4:
          m.host_ip4_prefix_set && m.host_ip4_prefix.len > 0
            ? { addr: m.host_ip4_prefix.address, len: m.host_ip4_prefix.len }
            : undefined,
        ip6:
          m.host_ip6_prefix_set && m.host_ip6_prefix.len > 0
            ? { addr: m.host_ip6_prefix.address, len: m.host_ip6_prefix.len }
            : undefined,
        ip4Gw: m.host_ip4_gw_set ? m.host_ip4_gw : undefined,
        ip6Gw: m.host_ip6_gw_set ? m.host_ip6_gw : undefined,
        bridge: m.host_bridge_set ? m.host_bridge : undefined,
        flags: m.tap_flags,
        rxRing: m.rx_ring_sz,
        txRing: m.tx_ring_sz,
      });
      // The tag is set whatever happened (on sw_if_index ~0 after a failure, where nobody sees it)
      if (r.rv === 0 && m.tag.length > 0) {
        const sw = ifs.get(r.swIfIndex);
        if (sw) sw.tag = m.tag.slice(0, 63);
      }
      call.reply({ retval: r.rv, sw_if_index: r.swIfIndex });
    });

    d.on(msg.tap_delete_v2, (m, call) => {
      const e = this.#swOf(this.taps, m.sw_if_index >>> 0);
      if (!e) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      const sw = ifs.get(e[1].swIfIndex);
      if (sw) ifs.delete(sw);
      const t = e[1];
      // tap_free clears TUNSETPERSIST before closing the fds: a deleted tap's device goes even when
      // it was persistent. Persistence only outlives VPP itself (a crash or a restart).
      this.#host.deleteTap(t.netns, t.hostIfName);
      const k = this.kernelTaps.findIndex((x) => x.name === t.hostIfName && x.netns === t.netns);
      if (k >= 0) this.kernelTaps.splice(k, 1);
      this.taps.remove(e[0]);
      call.reply({ retval: 0 });
    });

    d.on(msg.sw_interface_tap_v2_dump, (m, call) => {
      if (!call.reg) return;
      const filter = m.sw_if_index >>> 0;
      if (filter !== 0xffffffff && !ifs.isValid(filter)) return;
      for (const t of this.taps.values()) {
        if (filter !== 0xffffffff && t.swIfIndex !== filter) continue;
        call.details(msg.sw_interface_tap_v2_details, {
          sw_if_index: t.swIfIndex,
          id: t.id,
          tx_ring_sz: t.txRing,
          rx_ring_sz: t.rxRing,
          host_mtu_size: t.hostMtu,
          host_mac_addr: macText(t.hostMac),
          host_ip4_prefix: { address: t.ip4?.addr ?? '0.0.0.0', len: t.ip4?.len ?? 0 },
          host_ip6_prefix: { address: t.ip6?.addr ?? '::', len: t.ip6?.len ?? 0 },
          tap_flags: t.flags,
          dev_name: ifs.get(t.swIfIndex)?.name ?? '',
          host_if_name: t.hostIfName.slice(0, 63),
          host_namespace: (t.netns ?? '').slice(0, 63),
          host_bridge: (t.bridge ?? '').slice(0, 63),
        });
      }
    });

    d.on(msg.create_vhost_user_if_v2, (m, call) => {
      const reply = (rv: number, sw: number): void => call.reply({ retval: rv, sw_if_index: sw });
      if (m.sock_filename.length === 0) return reply(Rv.INVALID_ARGUMENT, 0xffffffff);
      for (const v of this.vhost.values())
        if (v.sockFilename === m.sock_filename) return reply(Rv.IF_ALREADY_EXISTS, v.swIfIndex);
      let server: { close(): void } | undefined;
      if (m.is_server) {
        const s = this.#vpp.options.checkHostInterfaces
          ? this.#host.listenUnix(m.sock_filename)
          : { close: () => undefined };
        if (s instanceof Error) return reply(Rv.SYSCALL_ERROR_2, 0xffffffff);
        server = s;
      }
      let sw: SimInterface | undefined;
      this.vhost.add((index) => {
        const instance = m.renumber ? m.custom_dev_instance : index;
        sw = ifs.create({
          kind: 'vhost_user',
          name: () => `VirtualEthernet0/0/${instance}`,
          devType: 'vhost-user',
          mac: m.use_custom_mac ? macBytes(m.mac_address) : randomMac(),
          linkUp: false,
          instance,
        });
        return { swIfIndex: sw.swIfIndex, sockFilename: m.sock_filename, isServer: m.is_server, server };
      });
      const created = sw as SimInterface;
      if (m.tag.length > 0) created.tag = m.tag.slice(0, 63);
      reply(0, created.swIfIndex);
    });

    d.on(msg.delete_vhost_user_if, (m, call) => {
      const e = this.#swOf(this.vhost, m.sw_if_index >>> 0);
      if (!e) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      e[1].server?.close();
      const sw = ifs.get(e[1].swIfIndex);
      if (sw) ifs.delete(sw);
      this.vhost.remove(e[0]);
      call.reply({ retval: 0 });
    });

    d.on(msg.sw_interface_vhost_user_dump, (m, call) => {
      if (!call.reg) return;
      const filter = m.sw_if_index >>> 0;
      if (filter !== 0xffffffff && !ifs.isValid(filter)) return;
      for (const v of this.vhost.values()) {
        if (filter !== 0xffffffff && v.swIfIndex !== filter) continue;
        call.details(msg.sw_interface_vhost_user_details, {
          sw_if_index: v.swIfIndex,
          interface_name: ifs.get(v.swIfIndex)?.name ?? '',
          // GUESS: values of an interface no VM has connected to
          virtio_net_hdr_sz: 0,
          features_first_32: 0,
          features_last_32: 0,
          is_server: v.isServer,
          sock_filename: v.sockFilename.slice(0, 255),
          num_regions: 0,
          sock_errno: 0,
        });
      }
    });

    d.on(msg.memif_socket_filename_add_del_v2, (m, call) => {
      let socketId = m.socket_id >>> 0;
      const reply = (rv: number): void => call.reply({ retval: rv, socket_id: socketId });
      if (socketId === 0) return reply(Rv.INVALID_ARGUMENT);
      if (m.is_add && socketId === 0xffffffff) socketId = this.#unusedMemifSocketId();
      if (socketId === 0xffffffff) return reply(Rv.INVALID_ARGUMENT);
      const existing = [...this.memifSockets.entries()].find(([, s]) => s.socketId === socketId);
      if (!m.is_add) {
        if (!existing) return reply(Rv.INVALID_ARGUMENT);
        if (existing[1].refs > 0) return reply(Rv.UNEXPECTED_INTF_STATE);
        this.memifSockets.remove(existing[0]);
        return reply(0);
      }
      const f = m.socket_filename;
      if (f.length === 0) return reply(Rv.INVALID_ARGUMENT);
      const name =
        f.startsWith('/') || f.startsWith('abstract:') || f.startsWith('@') ? f : `${RUNTIME_DIR}/${f}`;
      if (existing) return reply(existing[1].filename === name ? 0 : Rv.ENTRY_ALREADY_EXISTS);
      this.memifSockets.add(() => ({ socketId, filename: name, refs: 0, isListener: false }));
      reply(0);
    });

    d.on(msg.memif_socket_filename_dump, (_m, call) => {
      if (!call.reg) return;
      for (const s of this.memifSockets.values())
        call.details(msg.memif_socket_filename_details, {
          socket_id: s.socketId,
          socket_filename: s.filename.slice(0, 107),
        });
    });

    d.on(msg.memif_create_v2, (m, call) => {
      const reply = (rv: number, sw: number): void => call.reply({ retval: rv, sw_if_index: sw });
      const ringSize = m.ring_size === 0 ? 1024 : m.ring_size >>> 0;
      if ((ringSize & (ringSize - 1)) !== 0) return reply(Rv.INVALID_ARGUMENT, 0);
      const sock = [...this.memifSockets.values()].find((s) => s.socketId === m.socket_id >>> 0);
      if (!sock) return reply(Rv.INVALID_ARGUMENT, 0);
      const isMaster = m.role === 0;
      if (sock.refs > 0) {
        if (sock.isListener !== isMaster) return reply(Rv.SUBIF_ALREADY_EXISTS, 0);
        if ([...this.memifs.values()].some((x) => x.socketId === sock.socketId && x.id === m.id >>> 0))
          return reply(Rv.SUBIF_ALREADY_EXISTS, 0);
      } else {
        sock.isListener = isMaster;
      }
      sock.refs++;
      let sw: SimInterface | undefined;
      const mac = m.hw_addr !== '00:00:00:00:00:00' ? macBytes(m.hw_addr) : randomMac();
      this.memifs.add((index) => {
        sw = ifs.create({
          kind: 'memif',
          name: () => `memif${sock.socketId}/${m.id >>> 0}`,
          devType: 'memif',
          mac,
          linkUp: false,
          instance: index,
        });
        return {
          swIfIndex: sw.swIfIndex,
          id: m.id >>> 0,
          socketId: sock.socketId,
          isMaster,
          mode: m.mode,
          ringSize,
          bufferSize: m.buffer_size === 0 ? 2048 : m.buffer_size,
          zeroCopy: !m.no_zero_copy,
        };
      });
      reply(0, (sw as SimInterface).swIfIndex);
    });

    d.on(msg.memif_delete, (m, call) => {
      const e = this.#swOf(this.memifs, m.sw_if_index >>> 0);
      if (!e) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      const sw = ifs.get(e[1].swIfIndex);
      if (sw) ifs.delete(sw);
      const sock = [...this.memifSockets.values()].find((s) => s.socketId === e[1].socketId);
      if (sock) sock.refs--;
      this.memifs.remove(e[0]);
      call.reply({ retval: 0 });
    });

    d.on(msg.memif_dump, (_m, call) => {
      if (!call.reg) return;
      for (const x of this.memifs.values()) {
        const sw = ifs.get(x.swIfIndex);
        if (!sw) continue;
        call.details(msg.memif_details, {
          sw_if_index: x.swIfIndex,
          hw_addr: macText(sw.mac ?? Buffer.alloc(6)),
          id: x.id,
          role: x.isMaster ? 0 : 1,
          mode: x.mode,
          zero_copy: x.zeroCopy,
          socket_id: x.socketId,
          // GUESS: the configured sizes (VPP reports the negotiated run-time values)
          ring_size: x.ringSize,
          buffer_size: x.bufferSize,
          flags: (sw.adminUp ? 1 : 0) | (sw.linkUp ? 2 : 0),
          if_name: sw.name.slice(0, 63),
        });
      }
    });
  }

  /** memif_get_unused_socket_id: a static seed walked with vppinfra's LCG */
  #unusedMemifSocketId(): number {
    const used = new Set([...this.memifSockets.values()].map((s) => s.socketId));
    for (let j = 0; j < 1 << 10; j++) {
      this.#memifSeed = (Math.imul(1664525, this.#memifSeed) + 1013904223) >>> 0;
      for (let i = 0; i < 1 << 10; i++) {
        this.#memifSeed = (this.#memifSeed + (2 * (i % 2) - 1) * i) >>> 0;
        if (this.#memifSeed === 0xffffffff) continue;
        if (!used.has(this.#memifSeed)) return this.#memifSeed;
      }
    }
    return 0xffffffff;
  }
}
