/**
 * The IP neighbour database's configuration and the neighbour advertisements VPP sends, following
 * VPP 26.06 src/vnet/ip-neighbor/ip_neighbor.c (ip_neighbor_db, ip_neighbor_config,
 * ip_neighbor_get_config), ip_neighbor_api.c (the config handlers) and ip6_neighbor.c /
 * ip4_neighbor.c (ip6_neighbor_advertise, ip4_neighbor_advertise).
 *
 * The simulator has no dataplane: the aging process and learned entries are not modelled. What a
 * test can see is the configuration as VPP reports it and the advertisements VPP put on the wire.
 */
import { msg } from '../messages/index.js';
import type { Dispatcher } from './dispatcher.js';
import { ipText, type Af } from './ip-addr.js';
import { Rv } from './retval.js';
import type { Vpp } from './vpp.js';

export interface NeighborDbConfig {
  /** ipndb_limit: 0 means no limit. */
  maxNumber: number;
  /** ipndb_age in seconds: 0 means entries never age. */
  maxAge: number;
  recycle: boolean;
}

/** One advertisement as sent: the interface, the advertised address, the MAC it carried. */
export interface SentAdvertisement {
  readonly swIfIndex: number;
  readonly address: string;
  readonly mac: string;
}

/** vl_api_address_family_t */
const ADDRESS_IP4 = 0;
const ADDRESS_IP6 = 1;

export class IpNeighbor {
  readonly #vpp: Vpp;
  /** ip_neighbor_db[]'s static initialiser: 50k entries, no aging, no recycling, per AF. */
  readonly config: Record<Af, NeighborDbConfig> = {
    4: { maxNumber: 50000, maxAge: 0, recycle: false },
    6: { maxNumber: 50000, maxAge: 0, recycle: false },
  };
  readonly advertisements: SentAdvertisement[] = [];

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
  }

  /**
   * ip4_neighbor_advertise / ip6_neighbor_advertise: a gratuitous ARP or an unsolicited NA
   * (override flag, to all-nodes) with the interface's hardware address. Neither checks the
   * address is the interface's, nor the link; both read the hw interface of `swIfIndex`.
   */
  advertise(swIfIndex: number, address: Buffer): void {
    const sw = this.#vpp.interfaces.get(swIfIndex);
    const mac = sw?.mac ? [...sw.mac].map((b) => b.toString(16).padStart(2, '0')).join(':') : '';
    // A link that is down drops the packet at the device's output node: nothing reaches a peer.
    if (sw?.adminUp && sw.linkUp) this.advertisements.push({ swIfIndex, address: ipText(address), mac });
  }

  register(d: Dispatcher): void {
    d.on(msg.ip_neighbor_config, (m, call) => {
      const af = decodeAf(m.af);
      if (af === undefined) {
        call.reply({ retval: Rv.INVALID_ADDRESS_FAMILY });
        return;
      }
      // ip_neighbor_config takes the values as given (no range checks) and wakes the aging process.
      this.config[af] = { maxNumber: m.max_number, maxAge: m.max_age, recycle: m.recycle };
      call.reply({ retval: 0 });
    });

    d.on(msg.ip_neighbor_config_get, (m, call) => {
      const af = decodeAf(m.af);
      // On a bad family the reply keeps the handler's initial values: AF_IP4, ~0, ~0, false.
      if (af === undefined) {
        call.reply({
          retval: Rv.INVALID_ADDRESS_FAMILY,
          af: ADDRESS_IP4,
          max_number: 0xffffffff,
          max_age: 0xffffffff,
          recycle: false,
        });
        return;
      }
      const c = this.config[af];
      call.reply({
        retval: 0,
        af: af === 4 ? ADDRESS_IP4 : ADDRESS_IP6,
        max_number: c.maxNumber,
        max_age: c.maxAge,
        recycle: c.recycle,
      });
    });
  }
}

/** ip_address_family_decode */
function decodeAf(af: number): Af | undefined {
  if (af === ADDRESS_IP4) return 4;
  if (af === ADDRESS_IP6) return 6;
  return undefined;
}
