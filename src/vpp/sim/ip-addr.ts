/**
 * Address helpers for the simulator: addresses are kept as bytes in network order (what VPP
 * stores), converted from and to the codec's text form.
 */
import { readIp4, readIp6, writeIp4, writeIp6 } from '../codec/text-format.js';

export type Af = 4 | 6;

export interface IpPrefix {
  readonly af: Af;
  /** 4 or 16 bytes, exactly as given (VPP keeps host bits in a FIB entry's prefix). */
  readonly addr: Buffer;
  readonly len: number;
}

export function ip4Bytes(text: string): Buffer {
  const b = Buffer.alloc(4);
  writeIp4(text, b, 0);
  return b;
}

export function ip6Bytes(text: string): Buffer {
  const b = Buffer.alloc(16);
  writeIp6(text, b, 0);
  return b;
}

export function ipText(addr: Uint8Array): string {
  const b = Buffer.from(addr.buffer, addr.byteOffset, addr.byteLength);
  return addr.length === 4 ? readIp4(b, 0) : readIp6(b, 0);
}

/** Bytes of `addr` with the bits beyond `len` cleared. */
export function masked(addr: Uint8Array, len: number): Buffer {
  const out = Buffer.from(addr);
  for (let i = 0; i < out.length; i++) {
    const keep = Math.max(0, Math.min(8, len - 8 * i));
    out[i] = (out[i] as number) & ((0xff00 >> keep) & 0xff);
  }
  return out;
}

/** The address with every bit beyond `len` set (the subnet broadcast for IPv4). */
export function withHostBitsSet(addr: Uint8Array, len: number): Buffer {
  const out = Buffer.from(addr);
  for (let i = 0; i < out.length; i++) {
    const keep = Math.max(0, Math.min(8, len - 8 * i));
    out[i] = (out[i] as number) | (~(0xff00 >> keep) & 0xff);
  }
  return out;
}

export function isZero(addr: Uint8Array): boolean {
  for (const b of addr) if (b !== 0) return false;
  return true;
}

/** `ip4_destination_matches_route`: does `addr` fall in `prefix/len`? */
export function covers(prefix: Uint8Array, len: number, addr: Uint8Array): boolean {
  return masked(prefix, len).equals(masked(addr, len));
}

/** The codec's `address` value for bytes (af 0 = IPv4, 1 = IPv6). */
export function apiAddress(addr: Uint8Array): { af: number; un: { ip4?: string; ip6?: string } } {
  return addr.length === 4 ? { af: 0, un: { ip4: ipText(addr) } } : { af: 1, un: { ip6: ipText(addr) } };
}

/** Bytes from a decoded `address` (af 0 → 4 bytes from the union's first 4, else 16). */
export function fromApiAddress(a: {
  readonly af: number;
  readonly un: { readonly ip4: string; readonly ip6: string };
}): Buffer {
  return a.af === 1 ? ip6Bytes(a.un.ip6) : ip4Bytes(a.un.ip4);
}

export function prefixText(p: IpPrefix): string {
  return `${ipText(p.addr)}/${p.len}`;
}

/** 48-bit MAC text → 6 bytes. */
export function macBytes(text: string): Buffer {
  return Buffer.from(text.split(/[:-]/).map((h) => parseInt(h, 16)));
}
