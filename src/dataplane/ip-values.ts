/** Conversions between canonical strings ("10.0.0.0/24") and VPP's address/prefix structs. */
import { isIp6 } from '../net/ip.js';
import { msg } from '../vpp/messages/index.js';

export interface VppAddress {
  readonly af: number;
  readonly un: { readonly ip4?: string; readonly ip6?: string };
}

export function vppAddress(addr: string): VppAddress {
  return isIp6(addr) ? { af: 1, un: { ip6: addr } } : { af: 0, un: { ip4: addr } };
}

export function vppPrefix(prefix: string): { readonly address: VppAddress; readonly len: number } {
  const [addr, len] = prefix.split('/') as [string, string];
  return { address: vppAddress(addr), len: Number(len) };
}

/** vl_api_address_family_t of a family. */
export function addressFamily(family: 4 | 6): number {
  return family === 6 ? msg.address_family_t.values.ADDRESS_IP6 : msg.address_family_t.values.ADDRESS_IP4;
}
