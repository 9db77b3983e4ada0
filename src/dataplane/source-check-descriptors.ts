/**
 * Source validation on an interface: VPP's uRPF (the urpf plugin) on its input, per address
 * family. In strict mode a packet whose source VPP would not route back out of the same interface,
 * looked up in `table`, is dropped and counted ("uRPF Drop" on ip4-rx-urpf-strict /
 * ip6-rx-urpf-strict); in loose mode one whose source has no route there (ip6-rx-urpf-loose).
 * Packets to multicast destinations (and IPv4's 255.255.255.255) pass, which is what DHCP DISCOVER
 * from 0.0.0.0, DAD from :: and router and neighbour solicitations need.
 *
 * The table is explicit (urpf_update_v2): the check looks where vppnet says, not wherever the
 * interface's binding points at the moment, and it reads back with its table from
 * urpf_interface_dump. Turning it off names no table: the table may be gone by then.
 * docs/source-validation.md has what was verified on a real VPP.
 */
import { defineKind } from '../reconcile/kind.js';
import { msg } from '../vpp/messages/index.js';
import type { DataplaneContext } from './context.js';
import { keys } from './keys.js';
import { addressFamily } from './ip-values.js';
import { NO_INDEX } from '../vpp/messages/sentinels.js';

export interface SourceCheckValue {
  readonly iface: string;
  readonly family: 4 | 6;
  /** The table the source is looked up in. */
  readonly table: number;
  /**
   * strict: the source's route must lead out of this interface (VM ports); loose: the source must
   * have a route at all in `table` (the uplink, whose table holds only the fleet's sources). VPP
   * counts each mode's drops on its own node, which keeps the two reasons apart in the metrics.
   */
  readonly mode: 'strict' | 'loose';
}

const MODE = msg.urpf_mode_t.values;

/**
 * urpf_update_v2 with mode off and no table (~0): the entry then follows the interface's own table
 * and, off, is no longer listed. Not urpf_update: VPP's v1 handler passes table 0, not ~0, which
 * leaves an "off, table 0" entry listed for good.
 */
function turnOff(ctx: DataplaneContext, swIfIndex: number, family: 4 | 6): Promise<unknown> {
  return ctx.client.call(msg.urpf_update_v2, {
    is_input: true,
    mode: MODE.URPF_API_MODE_OFF,
    af: addressFamily(family),
    sw_if_index: swIfIndex,
    table_id: NO_INDEX,
  });
}

export const sourceCheckDescriptor = defineKind<SourceCheckValue, DataplaneContext>({
  kind: 'source-check',
  // On by default for every VM port: a VPP without the urpf plugin would run VMs that can send as
  // anyone, so it is refused at connect rather than per port.
  messages: { required: [msg.urpf_update_v2] },
  key: (v) => keys.sourceCheck(v.iface, v.family === 6),
  deps: (v) => [keys.interface(v.iface), keys.ipTable(v.table, v.family === 6)],
  async create(ctx, { value }) {
    const swIfIndex = ctx.interfaces.index(value.iface);
    // Off first: VPP enables the check's node only when the mode or table changes, and an entry
    // left by a deleted interface with this sw_if_index may already say strict in this table
    // while checking nothing (see clearInheritedSourceChecks).
    await turnOff(ctx, swIfIndex, value.family);
    await ctx.client.call(msg.urpf_update_v2, {
      is_input: true,
      mode: value.mode === 'loose' ? MODE.URPF_API_MODE_LOOSE : MODE.URPF_API_MODE_STRICT,
      af: addressFamily(value.family),
      sw_if_index: swIfIndex,
      table_id: value.table,
    });
  },
  async delete(ctx, { value }) {
    if (!ctx.interfaces.has(value.iface)) return;
    await turnOff(ctx, ctx.interfaces.index(value.iface), value.family);
  },
});

/**
 * Clears the uRPF settings a new interface inherits. VPP keeps them per sw_if_index and does not
 * remove them with an interface (the urpf plugin has no interface-delete hook): an interface
 * deleted behind vppnet's back leaves "strict in table T" to whichever interface next gets its
 * index, listed by urpf_interface_dump while its node is off. A VM port that wanted exactly that
 * would be read back as checked and never be; any other interface would show a check that is not
 * vppnet's to keep. Called for every interface vppnet creates (two requests, pipelined).
 */
export async function clearInheritedSourceChecks(ctx: DataplaneContext, swIfIndex: number): Promise<void> {
  await Promise.all([turnOff(ctx, swIfIndex, 4), turnOff(ctx, swIfIndex, 6)]);
}
