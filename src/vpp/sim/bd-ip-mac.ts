/**
 * A bridge domain's IP-to-MAC tables, the ARP/ND termination tables (src/vnet/l2/l2_bd.c
 * bd_add_del_ip_mac, l2_api.c vl_api_bd_ip_mac_add_del_t_handler / _dump_t_handler in VPP 26.06).
 *
 * Each bridge domain has mac_by_ip4 (a vppinfra uword hash keyed by the address's u32 as it lies
 * in memory, created on the first hash_set: hash_create (0, sizeof (uword))) and mac_by_ip6
 * (hash_create_mem (0, sizeof (ip6_address_t), sizeof (uword)) in bd_validate), both mapping to
 * the MAC. bd_delete frees both (bd_free_ip_mac_tables): a bridge domain created again starts
 * empty.
 *
 * bd_ip_mac_add_del: bd_id 0 → BD_NOT_MODIFIABLE, an unknown bd_id → NO_SUCH_ENTRY; then
 * bd_add_del_ip_mac, whose failure (1) becomes UNSPECIFIED:
 * - add: a new address is inserted; an address already there gets the new MAC (hash_set in
 *   place: its dump position does not change); the same MAC again is a no-op. Never fails.
 * - delete: only when the address is there *with that MAC*; otherwise 1 → UNSPECIFIED.
 * An address family other than IPv4/IPv6 decodes as IP46_TYPE_ANY with the all-zero address and
 * takes the IPv4 branch (0.0.0.0).
 *
 * bd_ip_mac_dump: bd_id ~0 walks bd_configs from index 1 (the placeholder bridge domain 0 is
 * skipped) to the end, skipping freed indices (bd_is_valid); another bd_id dumps that bridge
 * domain (0 included: it has nothing) or nothing when unknown. Per bridge domain: the IPv4
 * entries in hash_foreach order, then the IPv6 ones in hash_foreach_mem order (see vpp-hash.ts
 * for how the visiting order is reproduced).
 */
import { readMac } from '../codec/text-format.js';
import { msg } from '../messages/index.js';
import type { Dispatcher } from './dispatcher.js';
import { apiAddress, fromApiAddress, macBytes } from './ip-addr.js';
import type { BridgeDomain } from './l2.js';
import { Rv } from './retval.js';
import { hashIp6AddressLow, hashUwordLow, VppHash } from './vpp-hash.js';
import type { Vpp } from './vpp.js';

interface IpMacTables {
  /** Key: ip4_address_t.as_u32 (the 4 network-order bytes read little-endian). */
  readonly ip4: VppHash<number, Buffer>;
  /** Key: the 16 address bytes, hex. */
  readonly ip6: VppHash<string, Buffer>;
}

/** ip4_address_t.as_u32 on a little-endian host */
function ip4Key(addr: Uint8Array): number {
  return (
    ((addr[0] as number) |
      ((addr[1] as number) << 8) |
      ((addr[2] as number) << 16) |
      ((addr[3] as number) << 24)) >>>
    0
  );
}

function ip4FromKey(key: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(key >>> 0, 0);
  return b;
}

function addDelIn<K extends number | string>(
  table: VppHash<K, Buffer>,
  key: K,
  mac: Buffer,
  isAdd: boolean,
): boolean {
  const old = table.get(key);
  if (isAdd) {
    if (!old || !old.equals(mac)) table.set(key, Buffer.from(mac));
    return true;
  }
  if (!old || !old.equals(mac)) return false;
  table.delete(key);
  return true;
}

export class BdIpMac {
  readonly #vpp: Vpp;
  /** By bridge domain object: a deleted bridge domain's tables go with it. */
  readonly #tables = new WeakMap<BridgeDomain, IpMacTables>();

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
  }

  #of(bd: BridgeDomain): IpMacTables {
    let t = this.#tables.get(bd);
    if (!t) {
      t = {
        ip4: new VppHash<number, Buffer>(hashUwordLow, { autoShrink: true }),
        ip6: new VppHash<string, Buffer>((k) => hashIp6AddressLow(Buffer.from(k, 'hex')), {
          autoShrink: true,
        }),
      };
      this.#tables.set(bd, t);
    }
    return t;
  }

  /** bd_add_del_ip_mac: false where VPP returns 1 (delete of an absent address or another MAC). */
  addDel(bd: BridgeDomain, ip: Buffer, mac: Buffer, isAdd: boolean): boolean {
    const t = this.#of(bd);
    return ip.length === 16
      ? addDelIn(t.ip6, ip.toString('hex'), mac, isAdd)
      : addDelIn(t.ip4, ip4Key(ip), mac, isAdd);
  }

  /** The MAC arp-term-l2bd finds for an IPv4 address (hash_get (mac_by_ip4, ...)). */
  lookup4(bd: BridgeDomain, ip: Uint8Array): Buffer | undefined {
    return this.#tables.get(bd)?.ip4.get(ip4Key(ip));
  }

  /** One bridge domain's entries in dump order: IPv4, then IPv6. */
  entries(bd: BridgeDomain): { ip: Buffer; mac: Buffer }[] {
    const t = this.#tables.get(bd);
    if (!t) return [];
    return [
      ...[...t.ip4.entries()].map(([k, mac]) => ({ ip: ip4FromKey(k), mac })),
      ...[...t.ip6.entries()].map(([k, mac]) => ({ ip: Buffer.from(k, 'hex'), mac })),
    ];
  }

  register(d: Dispatcher): void {
    const l2 = this.#vpp.l2;

    d.on(msg.bd_ip_mac_add_del, (m, call) => {
      const bdId = m.entry.bd_id >>> 0;
      if (bdId === 0) return call.reply({ retval: Rv.BD_NOT_MODIFIABLE });
      const bd = l2.byId(bdId);
      if (!bd) return call.reply({ retval: Rv.NO_SUCH_ENTRY });
      const a = m.entry.ip;
      // ip_address_decode: IPv4, IPv6, or (another family) IP46_TYPE_ANY with the zero address
      const ip = a.af === 0 || a.af === 1 ? fromApiAddress(a) : Buffer.alloc(4);
      const ok = this.addDel(bd, ip, macBytes(m.entry.mac), m.is_add);
      call.reply({ retval: ok ? 0 : Rv.UNSPECIFIED });
    });

    d.on(msg.bd_ip_mac_dump, (m, call) => {
      if (!call.reg) return;
      const bdId = m.bd_id >>> 0;
      let list: BridgeDomain[];
      if (bdId === 0xffffffff) {
        list = l2.bridges(); // index order, from index 1
      } else {
        const bd = l2.byId(bdId);
        if (!bd) return;
        list = [bd];
      }
      for (const bd of list) {
        for (const e of this.entries(bd)) {
          call.details(msg.bd_ip_mac_details, {
            entry: { bd_id: bd.bdId, ip: apiAddress(e.ip), mac: readMac(e.mac, 0) },
          });
        }
      }
    });
  }
}
