/**
 * Logical interface names ↔ VPP sw_if_index for one VPP process: vppnet's interfaces by their
 * tag, others (the underlay NIC) by their VPP name.
 */
import { isOwnedTag } from './keys.js';
import { NameIndex } from './name-index.js';

export class InterfaceRegistry extends NameIndex {
  constructor() {
    super('interface');
  }

  static fromDump(
    details: Iterable<{
      readonly sw_if_index: number;
      readonly interface_name: string;
      readonly tag: string;
    }>,
  ): InterfaceRegistry {
    const r = new InterfaceRegistry();
    for (const d of details) r.set(isOwnedTag(d.tag) ? d.tag : d.interface_name, d.sw_if_index);
    return r;
  }

  nameOf(swIfIndex: number): string | undefined {
    return this.lookupName(swIfIndex);
  }
}
