/**
 * Byte <-> text for the address aliases. Each has exactly one canonical spelling (RFC 5952 for
 * IPv6), so decode → encode reproduces the bytes exactly.
 */
import { VppError } from '../errors.js';

export function writeIp4(text: string, buf: Buffer, off: number): void {
  const parts = text.split('.');
  if (parts.length !== 4) throw badText('IPv4 address', text);
  for (let i = 0; i < 4; i++) {
    const part = parts[i] as string;
    if (!/^\d{1,3}$/.test(part)) throw badText('IPv4 address', text);
    const n = Number(part);
    if (n > 255) throw badText('IPv4 address', text);
    buf[off + i] = n;
  }
}

export function readIp4(buf: Buffer, off: number): string {
  return `${buf[off]}.${buf[off + 1]}.${buf[off + 2]}.${buf[off + 3]}`;
}

export function writeIp6(text: string, buf: Buffer, off: number): void {
  let head = text;
  let tail = '';
  const dbl = text.indexOf('::');
  if (dbl >= 0) {
    head = text.slice(0, dbl);
    tail = text.slice(dbl + 2);
    if (tail.includes('::')) throw badText('IPv6 address', text);
  }
  const headGroups = head === '' ? [] : head.split(':');
  let tailGroups = tail === '' ? [] : tail.split(':');
  // An embedded IPv4 tail (::ffff:1.2.3.4) counts as two groups.
  const last = dbl >= 0 ? tailGroups[tailGroups.length - 1] : headGroups[headGroups.length - 1];
  const words: number[] = [];
  let v4: Buffer | undefined;
  if (last !== undefined && last.includes('.')) {
    v4 = Buffer.alloc(4);
    writeIp4(last, v4, 0);
    if (dbl >= 0) tailGroups = tailGroups.slice(0, -1);
    else headGroups.pop();
  }
  const v4Groups = v4 ? 2 : 0;
  const explicit = headGroups.length + tailGroups.length + v4Groups;
  if (dbl < 0 ? explicit !== 8 : explicit > 7) throw badText('IPv6 address', text);
  const parseGroup = (g: string): number => {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) throw badText('IPv6 address', text);
    return parseInt(g, 16);
  };
  for (const g of headGroups) words.push(parseGroup(g));
  for (let i = 0; i < 8 - explicit; i++) words.push(0);
  for (const g of tailGroups) words.push(parseGroup(g));
  for (let i = 0; i < words.length; i++) buf.writeUInt16BE(words[i] as number, off + 2 * i);
  if (v4) v4.copy(buf, off + 12);
}

export function readIp6(buf: Buffer, off: number): string {
  const words: number[] = [];
  for (let i = 0; i < 8; i++) words.push(buf.readUInt16BE(off + 2 * i));
  // RFC 5952: compress the longest run (>= 2) of zero groups, the first one on a tie.
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (ws: number[]): string => ws.map((w) => w.toString(16)).join(':');
  if (bestStart < 0) return hex(words);
  return `${hex(words.slice(0, bestStart))}::${hex(words.slice(bestStart + bestLen))}`;
}

export function writeMac(text: string, buf: Buffer, off: number): void {
  const parts = text.split(/[:-]/);
  if (parts.length !== 6) throw badText('MAC address', text);
  for (let i = 0; i < 6; i++) {
    const part = parts[i] as string;
    if (!/^[0-9a-fA-F]{1,2}$/.test(part)) throw badText('MAC address', text);
    buf[off + i] = parseInt(part, 16);
  }
}

export function readMac(buf: Buffer, off: number): string {
  let s = '';
  for (let i = 0; i < 6; i++) {
    if (i > 0) s += ':';
    s += (buf[off + i] as number).toString(16).padStart(2, '0');
  }
  return s;
}

function badText(what: string, text: string): VppError {
  return new VppError('VPPNET_ERR_ENCODE', `not a valid ${what}: ${JSON.stringify(text)}`);
}
