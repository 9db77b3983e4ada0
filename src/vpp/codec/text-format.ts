/**
 * Byte <-> text for the address aliases. Each has exactly one canonical spelling (RFC 5952 for
 * IPv6), so decode → encode reproduces the bytes exactly.
 */
import { formatIp4, formatIp6, writeIp4Literal, writeIp6Literal } from '../../net/ip-literal.js';
import { VppError } from '../errors.js';

// The address literals are parsed and formatted in src/net/ip-literal.ts, once for vppnet.

export function writeIp4(text: string, buf: Buffer, off: number): void {
  if (!writeIp4Literal(text, buf, off)) throw badText('IPv4 address', text);
}

export function readIp4(buf: Buffer, off: number): string {
  return formatIp4(buf, off);
}

export function writeIp6(text: string, buf: Buffer, off: number): void {
  if (!writeIp6Literal(text, buf, off)) throw badText('IPv6 address', text);
}

export function readIp6(buf: Buffer, off: number): string {
  return formatIp6(buf, off);
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
