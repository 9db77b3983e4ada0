/**
 * etcd's WatchResponse (rpc.proto, with kv.proto's Event and KeyValue), decoded straight from its
 * protobuf bytes into what a watch hands on: the store's events, keys and values as text.
 *
 * Why not proto-loader's own deserializer: it builds a protobufjs message per response, header,
 * event and key-value, a Buffer per key and value, and then copies all of it into plain objects
 * with every default filled in — about a tenth of what an agent allocated at 1,000 endpoint
 * changes a second (bench/fleet (c), a sampling heap profile of its busiest agent), and each of
 * those objects was garbage by the next turn. Nor protobufjs's Reader under it: each int64 it
 * reads makes a LongBits object (~3 % of that profile alone) and each bytes() a Buffer. This reads
 * the six fields a watch uses and skips the rest by wire type, as any protobuf reader does with
 * fields it does not know.
 */
import type { StoreEvent } from '../store.js';

export interface WatchResponseMessage {
  /** header.revision: the store's revision when the response was sent. */
  readonly revision: number;
  readonly created: boolean;
  readonly canceled: boolean;
  readonly compactRevision: number;
  readonly cancelReason: string;
  readonly events: StoreEvent[];
}

// Field numbers (rpc.proto WatchResponse, ResponseHeader; kv.proto Event, KeyValue).
const RESPONSE_HEADER = 1;
const RESPONSE_CREATED = 3;
const RESPONSE_CANCELED = 4;
const RESPONSE_COMPACT_REVISION = 5;
const RESPONSE_CANCEL_REASON = 6;
const RESPONSE_EVENTS = 11;
const HEADER_REVISION = 3;
const EVENT_TYPE = 1;
const EVENT_KV = 2;
const KV_KEY = 1;
const KV_MOD_REVISION = 3;
const KV_VALUE = 5;
/** mvccpb.Event.EventType */
const EVENT_DELETE = 1;

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

export class WatchResponseDecodeError extends Error {
  constructor(message: string) {
    super(`etcd watch response: ${message}`);
    this.name = 'WatchResponseDecodeError';
  }
}

/**
 * A cursor over one response's bytes, [pos, end); a nested message narrows `end` to its own
 * while it is read (one reader per response, no objects per field).
 */
class Reader {
  pos = 0;
  end: number;
  /** Where the last delimited() field's bytes start. */
  start = 0;
  constructor(readonly buf: Buffer) {
    this.end = buf.length;
  }

  /**
   * A varint as a number: exact up to 2^53, which revisions stay far below. (A negative int64 is
   * ten bytes and reads as a number near 2^64; none of the fields read here is ever negative.)
   */
  varint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new WatchResponseDecodeError('truncated varint');
      const b = this.buf[this.pos++] as number;
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 128;
    }
    throw new WatchResponseDecodeError('varint longer than 10 bytes');
  }

  /** A length-delimited field: its bytes start at `start`; returns where they end, the cursor left at the start. */
  delimited(): number {
    const len = this.varint();
    if (len > this.end - this.pos) throw new WatchResponseDecodeError('length past the end of its message');
    this.start = this.pos;
    return this.pos + len;
  }

  /** A length-delimited field as text, the cursor past it. */
  text(): string {
    const end = this.delimited();
    this.pos = end;
    return this.buf.toString('utf8', this.start, end);
  }

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
        throw new WatchResponseDecodeError(`unsupported wire type ${wireType}`);
    }
  }

  advance(n: number): void {
    if (n > this.end - this.pos) throw new WatchResponseDecodeError('truncated field');
    this.pos += n;
  }
}

/** One WatchResponse from its bytes (grpc's response deserializer for Watch). */
export function decodeWatchResponse(buf: Buffer): WatchResponseMessage {
  const r = new Reader(buf);
  let revision = 0;
  let created = false;
  let canceled = false;
  let compactRevision = 0;
  let cancelReason = '';
  const events: StoreEvent[] = [];
  while (r.pos < r.end) {
    const tag = r.varint();
    if (tag === RESPONSE_HEADER * 8 + LENGTH_DELIMITED) revision = nested(r, headerRevision);
    else if (tag === RESPONSE_CREATED * 8 + VARINT) created = r.varint() !== 0;
    else if (tag === RESPONSE_CANCELED * 8 + VARINT) canceled = r.varint() !== 0;
    else if (tag === RESPONSE_COMPACT_REVISION * 8 + VARINT) compactRevision = r.varint();
    else if (tag === RESPONSE_CANCEL_REASON * 8 + LENGTH_DELIMITED) cancelReason = r.text();
    else if (tag === RESPONSE_EVENTS * 8 + LENGTH_DELIMITED) events.push(nested(r, event));
    else r.skip(tag & 7);
  }
  return { revision, created, canceled, compactRevision, cancelReason, events };
}

/** Reads the length-delimited message at the cursor with `read`, within its own bytes. */
function nested<T>(r: Reader, read: (r: Reader) => T): T {
  const end = r.delimited();
  const outer = r.end;
  r.end = end;
  const value = read(r);
  r.end = outer;
  return value;
}

function headerRevision(r: Reader): number {
  let revision = 0;
  while (r.pos < r.end) {
    const tag = r.varint();
    if (tag === HEADER_REVISION * 8 + VARINT) revision = r.varint();
    else r.skip(tag & 7);
  }
  return revision;
}

/** An Event as the store's: its kv's key, mod revision and (for a put) value; prev_kv is skipped. */
function event(r: Reader): StoreEvent {
  let type = 0;
  let kv: KeyValueFields | undefined;
  while (r.pos < r.end) {
    const tag = r.varint();
    if (tag === EVENT_TYPE * 8 + VARINT) type = r.varint();
    else if (tag === EVENT_KV * 8 + LENGTH_DELIMITED) kv = nested(r, keyValue);
    else r.skip(tag & 7);
  }
  if (kv === undefined) throw new WatchResponseDecodeError('an event without its key-value');
  const { key, value, revision } = kv;
  return type === EVENT_DELETE ? { type: 'delete', key, revision } : { type: 'put', key, value, revision };
}

interface KeyValueFields {
  readonly key: string;
  readonly value: string;
  readonly revision: number;
}

function keyValue(r: Reader): KeyValueFields {
  let key = '';
  let value = '';
  let revision = 0;
  while (r.pos < r.end) {
    const tag = r.varint();
    if (tag === KV_KEY * 8 + LENGTH_DELIMITED) key = r.text();
    else if (tag === KV_VALUE * 8 + LENGTH_DELIMITED) value = r.text();
    else if (tag === KV_MOD_REVISION * 8 + VARINT) revision = r.varint();
    else r.skip(tag & 7);
  }
  return { key, value, revision };
}
