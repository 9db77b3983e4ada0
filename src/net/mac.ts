/**
 * Ethernet addresses: the one written form vppnet takes (the colon form `ip` prints, either case),
 * for the agent config's VM ports, the agent API's attach request and the CNI config's `mac`.
 */
export function isMac(s: string): boolean {
  return /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i.test(s);
}

/** A MAC whose I/G bit (the low bit of the first octet) is clear: one station, not a group. */
export function isUnicastMac(s: string): boolean {
  return isMac(s) && (parseInt(s.slice(0, 2), 16) & 1) === 0;
}
