/**
 * An IPv6 prefix held as numbers: its address's four 32-bit words and its length, read from its
 * text once; its canonical text is made only when `address` is read (a message, a lookup by
 * address). Config validation reads each of a node's 100k remote IPv6 routes so: as text, each was
 * parsed five times and formatted twice, and loading an IPv6 node's config took up to 1.9× an
 * IPv4 node's (bench/results/2026-12-08-config-load-ip6.md). The functions of ip.ts that read a
 * prefix's address as bytes take them from the words (writeAddress), not from the text.
 */
import { formatIp6, writeIp6PrefixLiteral } from './ip-literal.js';
import type { Ip6Prefix } from './ip.js';

export class Ip6PrefixWords implements Ip6Prefix {
  readonly len: number;
  /**
   * The address's words, most significant first, each as a signed 32-bit integer (a small
   * integer in V8): what an Ip6WrittenRoute keeps of a route's prefix.
   */
  readonly w0: number;
  readonly w1: number;
  readonly w2: number;
  readonly w3: number;

  private constructor(bytes: Uint8Array, len: number) {
    this.w0 = wordAt(bytes, 0);
    this.w1 = wordAt(bytes, 4);
    this.w2 = wordAt(bytes, 8);
    this.w3 = wordAt(bytes, 12);
    this.len = len;
  }

  /** "address/len" as parseIp6Prefix (ip.ts) reads it, or undefined when it is no IPv6 prefix. */
  static read(text: string): Ip6PrefixWords | undefined {
    const len = writeIp6PrefixLiteral(text, scratch, 0);
    return len < 0 ? undefined : new Ip6PrefixWords(scratch, len);
  }

  /** The address, canonical (RFC 5952), made on each read. */
  get address(): string {
    this.writeAddress(scratch, 0);
    return formatIp6(scratch, 0);
  }

  /** Writes the address's 16 bytes at `off`. */
  writeAddress(buf: Uint8Array, off: number): void {
    writeWord(buf, off, this.w0);
    writeWord(buf, off + 4, this.w1);
    writeWord(buf, off + 8, this.w2);
    writeWord(buf, off + 12, this.w3);
  }

  /**
   * The prefix as nine UTF-16 code units (its eight groups and its length): equal for equal
   * prefixes whatever their spelling, for a Map. Cheaper to make and to hash than the text.
   */
  get key(): string {
    return String.fromCharCode(
      this.w0 >>> 16,
      this.w0 & 0xffff,
      this.w1 >>> 16,
      this.w1 & 0xffff,
      this.w2 >>> 16,
      this.w2 & 0xffff,
      this.w3 >>> 16,
      this.w3 & 0xffff,
      this.len,
    );
  }
}

/** The signed 32-bit word of bytes[off, off + 4), most significant byte first. */
function wordAt(bytes: Uint8Array, off: number): number {
  return (
    ((bytes[off] as number) << 24) |
    ((bytes[off + 1] as number) << 16) |
    ((bytes[off + 2] as number) << 8) |
    (bytes[off + 3] as number)
  );
}

function writeWord(buf: Uint8Array, off: number, w: number): void {
  buf[off] = w >>> 24;
  buf[off + 1] = (w >>> 16) & 0xff;
  buf[off + 2] = (w >>> 8) & 0xff;
  buf[off + 3] = w & 0xff;
}

/** One address's bytes at a time: read or written in full by each call above. */
const scratch = new Uint8Array(16);
