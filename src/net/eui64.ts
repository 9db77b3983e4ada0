/**
 * Modified EUI-64 interface identifiers (RFC 4291 appendix A): what SLAAC gives a Linux guest with
 * `addr_gen_mode` 0, so a port's default IPv6 address is the one its VM picks by itself
 * (docs/dual-stack.md).
 */
import { bigIntToIp6, ip6ToBigInt, isMac, type Ip6Prefix } from './ip.js';

/** The 64-bit interface identifier of a MAC: ff:fe in the middle, the universal/local bit flipped. */
export function eui64InterfaceId(mac: string): bigint {
  if (!isMac(mac)) throw new TypeError(`not a MAC address: ${JSON.stringify(mac)}`);
  const b = mac.split(':').map((h) => parseInt(h, 16));
  const bytes = [(b[0] as number) ^ 0x02, b[1], b[2], 0xff, 0xfe, b[3], b[4], b[5]] as number[];
  return bytes.reduce((id, byte) => (id << 8n) | BigInt(byte), 0n);
}

/**
 * The address SLAAC forms from `mac` in a /64: 52:54:00:61:0a:01 in 2001:db8:a::/64 is
 * 2001:db8:a:0:5054:ff:fe61:a01.
 */
export function eui64Address(subnet: Ip6Prefix, mac: string): string {
  if (subnet.len !== 64) throw new RangeError(`EUI-64 addresses need a /64, not /${subnet.len}`);
  const network = (ip6ToBigInt(subnet.address) >> 64n) << 64n;
  return bigIntToIp6(network | eui64InterfaceId(mac));
}
