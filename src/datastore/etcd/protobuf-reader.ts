/**
 * A cursor over one protobuf message's bytes, for the etcd responses vppnet decodes itself
 * (watch-response.ts, range-response.ts; the former says why not protobufjs's own Reader): no
 * object per field, each int64 read as a number, each bytes field left in place for its reader to
 * take as text or as a view.
 *
 * A nested message narrows `end` to its own bytes while it is read, so one reader serves a whole
 * response. Every overrun is an error from `fail`, which names the message being decoded.
 */

export const VARINT = 0;
export const FIXED64 = 1;
export const LENGTH_DELIMITED = 2;
export const FIXED32 = 5;

/** A field's tag as it is on the wire: the varint a reader compares with. */
export function tag(field: number, wireType: number): number {
  return field * 8 + wireType;
}

export class ProtobufReader {
  pos = 0;
  end: number;
  /** Where the last delimited() field's bytes start. */
  start = 0;

  /** `fail` makes the error thrown for malformed bytes, from what is wrong with them. */
  constructor(
    readonly buf: Buffer,
    readonly fail: (problem: string) => Error,
  ) {
    this.end = buf.length;
  }

  /**
   * A varint as a number: exact up to 2^53, which revisions and counts stay far below. (A negative
   * int64 is ten bytes and reads as a number near 2^64; none of the fields read is ever negative.)
   */
  varint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw this.fail('truncated varint');
      const b = this.buf[this.pos++] as number;
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 128;
    }
    throw this.fail('varint longer than 10 bytes');
  }

  /** A length-delimited field: its bytes start at `start`; returns where they end, the cursor left at the start. */
  delimited(): number {
    const len = this.varint();
    if (len > this.end - this.pos) throw this.fail('length past the end of its message');
    this.start = this.pos;
    return this.pos + len;
  }

  /** A length-delimited field as UTF-8 text, the cursor past it. */
  text(): string {
    const end = this.delimited();
    this.pos = end;
    return this.buf.toString('utf8', this.start, end);
  }

  /** Reads the length-delimited message at the cursor with `read`, within its own bytes. */
  nested<T>(read: (r: ProtobufReader) => T): T {
    const end = this.delimited();
    const outer = this.end;
    this.end = end;
    const value = read(this);
    this.end = outer;
    return value;
  }

  /** Skips a field this reader does not read, as any protobuf reader does with fields it does not know. */
  skip(wireType: number): void {
    switch (wireType) {
      case VARINT:
        this.varint();
        return;
      case FIXED64:
        this.advance(8);
        return;
      case LENGTH_DELIMITED:
        this.pos = this.delimited();
        return;
      case FIXED32:
        this.advance(4);
        return;
      default:
        throw this.fail(`unsupported wire type ${wireType}`);
    }
  }

  advance(n: number): void {
    if (n > this.end - this.pos) throw this.fail('truncated field');
    this.pos += n;
  }
}
