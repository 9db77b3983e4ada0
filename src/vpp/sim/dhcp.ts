/**
 * The DHCP plugin's relay (proxy) configuration and VSS (src/plugins/dhcp/dhcp_api.c,
 * dhcp_proxy.c, dhcp4_proxy_node.c in VPP 26.06).
 *
 * A proxy is keyed by the receive table's fib_index; it locks its server tables and, for IPv4,
 * adds a receive 255.255.255.255/32 (source DHCP) to the receive table. Tables that do not exist
 * are created (`fib_table_find_or_create_and_lock`).
 */
import { msg } from '../messages/index.js';
import type { Dispatcher } from './dispatcher.js';
import { FibSource } from './fib-sources.js';
import { fromApiAddress, isZero } from './ip-addr.js';
import { Rv } from './retval.js';
import type { Vpp } from './vpp.js';

// GUESS: DHCPv6 proxies key on IPv6 *multicast* tables (mfib) in VPP; the simulator, which
// has no mfib, uses the unicast IPv6 table of the same id.

/** VSS types (dhcp_proxy.h) */
const VSS_TYPE_ASCII = 0;
const VSS_TYPE_VPN_ID = 1;
const VSS_TYPE_INVALID = 123;

export interface DhcpProxy {
  readonly rxFibIndex: number;
  readonly src: Buffer;
  servers: { addr: Buffer; serverFibIndex: number }[];
}

export interface DhcpVss {
  type: number;
  asciiId: string;
  vpnId: Buffer;
}

const ALL_ONES = { af: 4 as const, addr: Buffer.from([255, 255, 255, 255]), len: 32 };

export class Dhcp {
  readonly #vpp: Vpp;
  /** by rx fib_index, per protocol (0 = IPv4, 1 = IPv6) */
  readonly proxies: [Map<number, DhcpProxy>, Map<number, DhcpProxy>] = [
    new Map<number, DhcpProxy>(),
    new Map<number, DhcpProxy>(),
  ];
  readonly vss: [Map<number, DhcpVss>, Map<number, DhcpVss>] = [
    new Map<number, DhcpVss>(),
    new Map<number, DhcpVss>(),
  ];

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
  }

  get #fib() {
    return this.#vpp.fib;
  }

  /** dhcp4_proxy_set_server / dhcp6_proxy_set_server (IPv6 tables are mfib tables there) */
  setServer(
    isV6: boolean,
    server: Buffer,
    src: Buffer,
    rxTableId: number,
    serverTableId: number,
    isDel: boolean,
  ): number {
    if (isZero(server)) return Rv.INVALID_DST_ADDRESS;
    if (isZero(src)) return Rv.INVALID_SRC_ADDRESS;
    const af = isV6 ? 6 : 4;
    const rx = this.#fib.findOrCreateAndLock(af, rxTableId, FibSource.DHCP);
    const proxies = this.proxies[isV6 ? 1 : 0];
    if (isDel) {
      const p = proxies.get(rx.index);
      if (p) {
        const at = p.servers.findIndex(
          (s) => s.addr.equals(server) && this.#fib.tableIdOf(af, s.serverFibIndex) === serverTableId >>> 0,
        );
        if (at >= 0) {
          const st = this.#fib.byIndex(af, (p.servers[at] as { serverFibIndex: number }).serverFibIndex);
          if (st) this.#fib.unlock(st, FibSource.DHCP);
          p.servers.splice(at, 1);
          if (p.servers.length === 0) {
            proxies.delete(rx.index);
            if (!isV6) this.#fib.sourceRemove(rx, ALL_ONES, FibSource.DHCP);
            this.#fib.unlock(rx, FibSource.DHCP);
          }
        }
      }
    } else {
      let p = proxies.get(rx.index);
      let isNew = false;
      if (!p) {
        p = { rxFibIndex: rx.index, src: Buffer.from(src), servers: [] };
        proxies.set(rx.index, p);
        isNew = true;
      }
      const exists = p.servers.some(
        (s) => s.addr.equals(server) && this.#fib.tableIdOf(af, s.serverFibIndex) === serverTableId >>> 0,
      );
      if (!exists) {
        const st = this.#fib.findOrCreateAndLock(af, serverTableId, FibSource.DHCP);
        p.servers.push({ addr: Buffer.from(server), serverFibIndex: st.index });
      }
      if (isNew) {
        if (!isV6) this.#fib.sourceAdd(rx, ALL_ONES, FibSource.DHCP, { kind: 'local' });
        this.#fib.lock(rx, FibSource.DHCP);
      }
    }
    // the lock taken by find_or_create at the start
    this.#fib.unlock(rx, FibSource.DHCP);
    return 0;
  }

  /** dhcp_proxy_set_vss */
  setVss(
    isV6: boolean,
    tableId: number,
    type: number,
    asciiId: string,
    oui: number,
    vpnIndex: number,
    isDel: boolean,
  ): number {
    const af = isV6 ? 6 : 4;
    const rx = this.#fib.findOrCreateAndLock(af, tableId, FibSource.DHCP);
    const vss = this.vss[isV6 ? 1 : 0];
    const v = vss.get(rx.index);
    let rv = 0;
    if (v) {
      if (isDel) {
        this.#fib.unlock(rx, FibSource.DHCP);
        vss.delete(rx.index);
      } else {
        updateVss(v, type, asciiId, oui, vpnIndex);
      }
    } else if (isDel) {
      rv = Rv.NO_SUCH_ENTRY;
    } else {
      const n: DhcpVss = { type: 0, asciiId: '', vpnId: Buffer.alloc(7) };
      updateVss(n, type, asciiId, oui, vpnIndex);
      vss.set(rx.index, n);
      this.#fib.lock(rx, FibSource.DHCP);
    }
    this.#fib.unlock(rx, FibSource.DHCP);
    return rv;
  }

  register(d: Dispatcher): void {
    d.on(msg.dhcp_proxy_config, (m, call) => {
      if (m.dhcp_src_address.af !== m.dhcp_server.af) return call.reply({ retval: Rv.INVALID_ARGUMENT });
      const isV6 = m.dhcp_src_address.af === 1;
      call.reply({
        retval: this.setServer(
          isV6,
          fromApiAddress(m.dhcp_server),
          fromApiAddress(m.dhcp_src_address),
          m.rx_vrf_id >>> 0,
          m.server_vrf_id >>> 0,
          !m.is_add,
        ),
      });
    });

    d.on(msg.dhcp_proxy_set_vss, (m, call) => {
      call.reply({
        retval: this.setVss(
          m.is_ipv6,
          m.tbl_id >>> 0,
          m.vss_type & 0xff,
          m.vpn_ascii_id,
          m.oui >>> 0,
          m.vpn_index >>> 0,
          !m.is_add,
        ),
      });
    });

    d.on(msg.dhcp_proxy_dump, (m, call) => {
      if (!call.reg) return;
      const isV6 = m.is_ip6;
      const af = isV6 ? 6 : 4;
      const list = [...this.proxies[isV6 ? 1 : 0].values()].sort((a, b) => a.rxFibIndex - b.rxFibIndex);
      for (const p of list) {
        const v = this.vss[isV6 ? 1 : 0].get(p.rxFibIndex);
        let vssType = VSS_TYPE_INVALID;
        let vssOui = 0;
        let vssFibId = 0;
        let ascii = '';
        if (v) {
          vssType = v.type;
          if (v.type === VSS_TYPE_ASCII) ascii = v.asciiId;
          else if (v.type === VSS_TYPE_VPN_ID) {
            vssOui = ((v.vpnId[0] as number) << 16) + ((v.vpnId[1] as number) << 8) + (v.vpnId[2] as number);
            vssFibId =
              (((v.vpnId[3] as number) << 24) >>> 0) +
              ((v.vpnId[4] as number) << 16) +
              ((v.vpnId[5] as number) << 8) +
              (v.vpnId[6] as number);
          }
        } else {
          // `mp->vss_type = VSS_TYPE_INVALID` without htonl: the byte 123 lands first on the wire
          vssType = (VSS_TYPE_INVALID << 24) >>> 0;
        }
        // dhcp_send_details copies the addresses into the union and leaves af at 0 (IPv4), even
        // for IPv6
        const addr = (b: Buffer): { af: number; un: { ip6: Uint8Array } } => ({
          af: 0,
          un: { ip6: new Uint8Array(b.length === 16 ? b : Buffer.concat([b, Buffer.alloc(12)])) },
        });
        call.details(msg.dhcp_proxy_details, {
          rx_vrf_id: this.#vpp.fib.tableIdOf(af, p.rxFibIndex),
          vss_oui: vssOui,
          vss_fib_id: vssFibId,
          vss_type: vssType,
          is_ipv6: isV6,
          vss_vpn_ascii_id: ascii.slice(0, 128),
          dhcp_src_address: addr(p.src),
          servers: p.servers.map((s) => ({
            server_vrf_id: this.#vpp.fib.tableIdOf(af, s.serverFibIndex),
            dhcp_server: addr(s.addr),
          })),
        });
      }
    });
  }
}

/** update_vss */
function updateVss(v: DhcpVss, type: number, asciiId: string, oui: number, vpnIndex: number): void {
  v.type = type;
  v.asciiId = type === VSS_TYPE_ASCII ? asciiId : '';
  if (type === VSS_TYPE_VPN_ID) {
    v.vpnId = Buffer.from([
      (oui >> 16) & 0xff,
      (oui >> 8) & 0xff,
      oui & 0xff,
      (vpnIndex >>> 24) & 0xff,
      (vpnIndex >> 16) & 0xff,
      (vpnIndex >> 8) & 0xff,
      vpnIndex & 0xff,
    ]);
  }
}
