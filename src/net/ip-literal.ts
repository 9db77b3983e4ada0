/**
 * Is this string an IPv4 or IPv6 address literal? The same answer as node:net's isIP for addresses
 * without a zone (`%eth0`, which no CNI field carries and `ip` would not take either), without its
 * cost: node:net's IPv6 check compiles one very large regular expression on first use, ~14 ms of
 * every vppnet-cni process, a process that lives ~100 ms.
 */

/** 4, 6, or 0 when `s` is neither. */
export function ipLiteralFamily(s: string): 0 | 4 | 6 {
  if (isIp4Literal(s)) return 4;
  return isIp6Literal(s) ? 6 : 0;
}

/** Dotted quad, each part 0..255 in decimal without leading zeros (as node:net). */
export function isIp4Literal(s: string): boolean {
  const parts = s.split('.');
  return parts.length === 4 && parts.every(isOctet);
}

function isOctet(part: string): boolean {
  if (part.length === 0 || part.length > 3) return false;
  for (let i = 0; i < part.length; i++) {
    const c = part.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  if (part.length > 1 && part.charCodeAt(0) === 48) return false;
  return Number(part) <= 255;
}

/** RFC 4291 text form: eight groups of 1-4 hex digits, one `::`, an IPv4 tail in the last 32 bits. */
export function isIp6Literal(s: string): boolean {
  const halves = s.split('::');
  if (halves.length > 2) return false;
  const groupsOf = (half: string): string[] | undefined => (half === '' ? [] : half.split(':'));
  const head = groupsOf(halves[0] ?? '');
  const tail = halves.length === 2 ? groupsOf(halves[1] ?? '') : [];
  if (head === undefined || tail === undefined) return false;
  // An IPv4 tail counts as two groups and may only end the address.
  const end = halves.length === 2 ? tail : head;
  const all = [...head, ...tail];
  let groups = all.length;
  const last = end[end.length - 1];
  if (last !== undefined && last.includes('.')) {
    if (!isIp4Literal(last)) return false;
    all.pop();
    groups++;
  }
  if (!all.every(isHexGroup)) return false;
  // `::` stands for at least one group of zeros.
  return halves.length === 2 ? groups <= 7 : groups === 8;
}

function isHexGroup(group: string): boolean {
  if (group.length === 0 || group.length > 4) return false;
  for (let i = 0; i < group.length; i++) {
    const c = group.charCodeAt(i);
    const digit = c >= 48 && c <= 57;
    const hex = (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
    if (!digit && !hex) return false;
  }
  return true;
}
