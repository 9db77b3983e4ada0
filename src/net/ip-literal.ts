/**
 * The one parser and formatter of IP address literals: config validation, the CNI plugin's
 * checks, the domain's address arithmetic and the VPP codec's address aliases all read text
 * through here, so they cannot disagree about what an address is.
 *
 * - IPv4: a dotted quad, each part 0..255 in decimal without leading zeros. `010.0.0.1` is
 *   rejected because tools read it differently: VPP's CLI (unformat `%d`) reads 10, inet_aton
 *   and so `ping` read octal 8, inet_pton, node:net and Python's ipaddress (vpp_papi) refuse
 *   it. An address vppnet sends to VPP and hands to `ip` must mean one thing to both.
 * - IPv6: RFC 4291 text form (eight groups of 1-4 hex digits, one `::`, an IPv4 tail in the last
 *   32 bits), no zone (`%eth0`: VPP's addresses have none, no CNI field carries one).
 * - Formatting is canonical (RFC 5952 for IPv6), as VPP's dumps decode to, so decode → encode
 *   reproduces bytes exactly.
 *
 * Hand-written rather than node:net's isIP: its IPv6 check compiles one very large regular
 * expression on first use, ~14 ms of every vppnet-cni process, a process that lives ~100 ms.
 */

/** 4, 6, or 0 when `s` is neither. */
export function ipLiteralFamily(s: string): 0 | 4 | 6 {
  if (isIp4Literal(s)) return 4;
  return isIp6Literal(s) ? 6 : 0;
}

/**
 * Without splitting: it runs for every endpoint record and route change of a busy fleet (a few
 * thousand a second per agent in bench/fleet), and strings and arrays per call showed in its GC.
 */
export function isIp4Literal(s: string): boolean {
  let parts = 0;
  let start = 0;
  for (let i = 0; i <= s.length; i++) {
    if (i < s.length && s.charCodeAt(i) !== 46) continue;
    if (octetAt(s, start, i) === undefined || ++parts > 4) return false;
    start = i + 1;
  }
  return parts === 4;
}

/**
 * The octet s[start, end): 0..255 in decimal, 1 to 3 digits, no leading zero (see the header);
 * undefined when it is none. Read in place, so the dotted-quad check needs no substrings.
 */
function octetAt(s: string, start: number, end: number): number | undefined {
  const length = end - start;
  if (length === 0 || length > 3) return undefined;
  let n = 0;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return undefined;
    n = n * 10 + (c - 48);
  }
  if (length > 1 && s.charCodeAt(start) === 48) return undefined;
  return n <= 255 ? n : undefined;
}

export function isIp6Literal(s: string): boolean {
  // Every IPv6 literal has a colon; an IPv4 one, the common question, is answered without parsing.
  // The common IPv6 spelling in one pass (writeIp6Groups), anything else by the general parser.
  return s.includes(':') && (writeIp6Groups(s, s.length, checked, 0) || parseIp6(s) !== undefined);
}

/** Where isIp6Literal's one-pass check writes the bytes it does not keep. */
const checked = new Uint8Array(16);

/** Writes the 4 bytes of an IPv4 literal at `off`; false (and nothing written) when it is none. */
export function writeIp4Literal(s: string, buf: Uint8Array, off: number): boolean {
  const octets = parseIp4(s);
  if (octets === undefined) return false;
  buf.set(octets, off);
  return true;
}

/**
 * Writes the 16 bytes of an IPv6 literal at `off`; false (and nothing written) when it is none.
 * `end`: the literal is `s` up to there (a prefix's address, read in place).
 */
export function writeIp6Literal(s: string, buf: Uint8Array, off: number, end = s.length): boolean {
  if (writeIp6Groups(s, end, buf, off)) return true;
  const words = parseIp6(end === s.length ? s : s.slice(0, end));
  if (words === undefined) return false;
  for (let i = 0; i < 8; i++) {
    const w = words[i] as number;
    buf[off + 2 * i] = w >> 8;
    buf[off + 2 * i + 1] = w & 0xff;
  }
  return true;
}

/**
 * Writes the address of an IPv6 prefix literal, "address/len" with the length in 1-3 decimal
 * digits up to 128, at `off` and returns the length; -1 when `s` is none (what was written is then
 * meaningless). Read in place, no substring or match array: config validation reads the prefix of
 * each of a node's 100k remote routes.
 */
export function writeIp6PrefixLiteral(s: string, buf: Uint8Array, off: number): number {
  const slash = s.indexOf('/');
  const digits = s.length - slash - 1;
  if (slash < 0 || digits < 1 || digits > 3) return -1;
  let len = 0;
  for (let i = slash + 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
    len = len * 10 + (c - 48);
  }
  return len <= 128 && writeIp6Literal(s, buf, off, slash) ? len : -1;
}

export function formatIp4(buf: Uint8Array, off: number): string {
  return `${buf[off]}.${buf[off + 1]}.${buf[off + 2]}.${buf[off + 3]}`;
}

/**
 * RFC 5952: lower-case hex, the longest run (>= 2) of zero groups as `::`, the first on a tie.
 * Without intermediate arrays: the codec formats every IPv6 address of a dump with it.
 */
export function formatIp6(buf: Uint8Array, off: number): string {
  let bestStart = -1;
  let bestLen = 1;
  let runStart = -1;
  for (let i = 0; i < 8; i++) {
    if (((buf[off + 2 * i] as number) | (buf[off + 2 * i + 1] as number)) === 0) {
      if (runStart < 0) runStart = i;
      if (i - runStart + 1 > bestLen) {
        bestStart = runStart;
        bestLen = i - runStart + 1;
      }
    } else runStart = -1;
  }
  let s = '';
  for (let i = 0; i < 8; i++) {
    if (i === bestStart) {
      s += '::';
      i += bestLen - 1;
      continue;
    }
    if (s !== '' && !s.endsWith(':')) s += ':';
    s += ((((buf[off + 2 * i] as number) << 8) | (buf[off + 2 * i + 1] as number)) >>> 0).toString(16);
  }
  return s;
}

function parseIp4(s: string): number[] | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const octets: number[] = [];
  for (const part of parts) {
    const octet = octetAt(part, 0, part.length);
    if (octet === undefined) return undefined;
    octets.push(octet);
  }
  return octets;
}

const groups = new Uint16Array(8);

/**
 * writeIp6Literal's common case in one pass over the text (`s` up to `n`), without strings or
 * arrays: hex groups and at most one `::`, no IPv4 tail. True when it wrote a valid address; false
 * when it could not tell (anything else, valid or not), for parseIp6 to decide. The ownership
 * checks of a pass parse a few thousand SIDs and BSIDs.
 */
function writeIp6Groups(s: string, n: number, buf: Uint8Array, off: number): boolean {
  if (n < 2 || n > 39) return false;
  let count = 0;
  let gap = -1; // groups before the `::`
  let value = 0;
  let digits = 0;
  let i = 0;
  if (s.charCodeAt(0) === 58) {
    if (s.charCodeAt(1) !== 58) return false;
    gap = 0;
    i = 2;
  }
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    let d: number;
    if (c >= 48 && c <= 57) d = c - 48;
    else if (c >= 97 && c <= 102) d = c - 87;
    else if (c >= 65 && c <= 70) d = c - 55;
    else if (c === 58) {
      if (digits === 0 || count === 8) return false;
      groups[count++] = value;
      value = 0;
      digits = 0;
      if (i + 1 < n && s.charCodeAt(i + 1) === 58) {
        if (gap >= 0) return false;
        gap = count;
        i++;
      } else if (i + 1 === n) return false;
      continue;
    } else return false;
    if (digits === 4) return false;
    value = value * 16 + d;
    digits++;
  }
  if (digits > 0) {
    if (count === 8) return false;
    groups[count++] = value;
  } else if (gap !== count) return false;
  if (gap < 0 ? count !== 8 : count > 7) return false;
  const zeros = gap < 0 ? 0 : 8 - count;
  let g = 0;
  for (let k = 0; k < 8; k++) {
    const w = gap >= 0 && k >= gap && k < gap + zeros ? 0 : (groups[g++] as number);
    buf[off + 2 * k] = w >> 8;
    buf[off + 2 * k + 1] = w & 0xff;
  }
  return true;
}

/** The eight 16-bit groups, or undefined. */
function parseIp6(s: string): number[] | undefined {
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const compressed = halves.length === 2;
  const groupsOf = (half: string): string[] => (half === '' ? [] : half.split(':'));
  const head = groupsOf(halves[0] ?? '');
  const tail = compressed ? groupsOf(halves[1] ?? '') : [];
  // An IPv4 tail counts as two groups and may only end the address.
  const end = compressed ? tail : head;
  let v4: number[] | undefined;
  const last = end[end.length - 1];
  if (last !== undefined && last.includes('.')) {
    v4 = parseIp4(last);
    if (v4 === undefined) return undefined;
    end.pop();
  }
  const explicit = head.length + tail.length + (v4 ? 2 : 0);
  // `::` stands for at least one group of zeros.
  if (compressed ? explicit > 7 : explicit !== 8) return undefined;
  const words: number[] = [];
  const push = (groups: string[]): boolean => {
    for (const g of groups) {
      const w = parseHexGroup(g);
      if (w === undefined) return false;
      words.push(w);
    }
    return true;
  };
  if (!push(head)) return undefined;
  for (let i = 0; i < 8 - explicit; i++) words.push(0);
  if (!push(tail)) return undefined;
  if (v4)
    words.push(((v4[0] as number) << 8) | (v4[1] as number), ((v4[2] as number) << 8) | (v4[3] as number));
  return words;
}

function parseHexGroup(group: string): number | undefined {
  if (group.length === 0 || group.length > 4) return undefined;
  for (let i = 0; i < group.length; i++) {
    const c = group.charCodeAt(i);
    const digit = c >= 48 && c <= 57;
    const hex = (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
    if (!digit && !hex) return undefined;
  }
  return parseInt(group, 16);
}
