/** An Ethernet address in the colon form `ip` prints (either case). */
export function isMac(s: string): boolean {
  return /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i.test(s);
}
