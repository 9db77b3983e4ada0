/**
 * The arping plugin (VPP 26.06 src/plugins/arping/arping_api.c, arping.c): with is_garp it sends
 * `repeat` gratuitous ARPs (IPv4) or unsolicited neighbour advertisements (IPv6) through
 * ip4/ip6_neighbor_advertise and answers reply_count 0; without, it sends neighbour probes and
 * counts the answers, which the simulator (no dataplane) never gets.
 */
import { msg } from '../messages/index.js';
import { VppCrash, type Dispatcher } from './dispatcher.js';
import { fromApiAddress } from './ip-addr.js';
import { Rv } from './retval.js';
import type { Vpp } from './vpp.js';

export class Arping {
  readonly #vpp: Vpp;

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
  }

  register(d: Dispatcher): void {
    d.on(msg.arping, (m, call) => {
      // VALIDATE_SW_IF_INDEX only when sw_if_index is not ~0: with ~0 the handler goes on to
      // vnet_get_sup_hw_interface (~0) (GARP) or vec_validate (interfaces, ~0) (probe).
      if (m.sw_if_index === 0xffffffff) throw new VppCrash('arping with sw_if_index ~0');
      if (!this.#vpp.interfaces.get(m.sw_if_index)) {
        call.reply({ retval: Rv.INVALID_SW_IF_INDEX, reply_count: 0 });
        return;
      }
      if (m.is_garp) {
        // arping_neighbor_advertisement: `repeat` packets (none for 0), suspending `interval`
        // seconds between them; always rv 0.
        const address = fromApiAddress(m.address);
        for (let i = 0; i < m.repeat; i++) this.#vpp.ipNeighbor.advertise(m.sw_if_index, address);
      }
      call.reply({ retval: 0, reply_count: 0 });
    });
  }
}
