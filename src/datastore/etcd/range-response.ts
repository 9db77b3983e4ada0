/**
 * etcd's RangeResponse (rpc.proto, with kv.proto's KeyValue), decoded straight from its protobuf
 * bytes into one page of a listing: the store's key-values, keys and values as text.
 *
 * Why not proto-loader's own deserializer (nor for watches: watch-response.ts): per key-value it
 * builds a protobufjs message, a Buffer for the key and one for the value, a LongBits per int64,
 * then a plain copy of it all with defaults, and the store turned the Buffers into text after
 * that. An agent's cold start lists ~110,000 keys: in a 256 MiB memory cgroup (V8's young
 * generation then 1 MB) a CPU profile of it showed ~200 ms in that deserializing and ~800 ms of
 * scavenges, mostly of those objects.
 */
import type { KeyValue } from '../store.js';
import { headerRevision, keyValue, type KeyBytes } from './kv-messages.js';
import { LENGTH_DELIMITED, ProtobufReader, tag, VARINT } from './protobuf-reader.js';

export interface RangeResponseMessage {
  /** header.revision: the store's revision the range was read at. */
  readonly revision: number;
  readonly kvs: KeyValue[];
  /** More keys are in the range than this response holds (the request's limit cut it). */
  readonly more: boolean;
  /** etcd's count of the keys in the requested range, those past the request's limit too. */
  readonly count: number;
  /**
   * The last key-value's key as etcd sent it, a view of the response's bytes (undefined when
   * there are none): the next page starts right after it, which its text cannot say of a key that
   * is not UTF-8.
   */
  readonly lastKey: Buffer | undefined;
}

// Field tags (rpc.proto RangeResponse).
const RESPONSE_HEADER = tag(1, LENGTH_DELIMITED);
const RESPONSE_KVS = tag(2, LENGTH_DELIMITED);
const RESPONSE_MORE = tag(3, VARINT);
const RESPONSE_COUNT = tag(4, VARINT);

export class RangeResponseDecodeError extends Error {
  constructor(message: string) {
    super(`etcd range response: ${message}`);
    this.name = 'RangeResponseDecodeError';
  }
}

const fail = (problem: string): Error => new RangeResponseDecodeError(problem);

/** One RangeResponse from its bytes (grpc's response deserializer for Range). */
export function decodeRangeResponse(buf: Buffer): RangeResponseMessage {
  const r = new ProtobufReader(buf, fail);
  let revision: number | undefined;
  let more = false;
  let count = 0;
  const kvs: KeyValue[] = [];
  const lastKeyAt: KeyBytes = { start: 0, end: 0 };
  const readKeyValue = (kr: ProtobufReader): KeyValue => keyValue(kr, lastKeyAt);
  while (r.pos < r.end) {
    const t = r.varint();
    if (t === RESPONSE_KVS) kvs.push(r.nested(readKeyValue));
    else if (t === RESPONSE_HEADER) revision = r.nested(headerRevision);
    else if (t === RESPONSE_MORE) more = r.varint() !== 0;
    else if (t === RESPONSE_COUNT) count = r.varint();
    else r.skip(t & 7);
  }
  // etcd always sends its header (the listing's revision).
  if (revision === undefined) throw fail('no header');
  // count is every key in the range, those sent and those beyond the limit; etcd writes it after
  // the key-values, so bytes cut at a field's boundary (a whole message to protobuf) show here
  // rather than as a listing missing keys.
  if (count < kvs.length) throw fail(`${kvs.length} key-values but a count of ${count}`);
  const lastKey = kvs.length > 0 ? buf.subarray(lastKeyAt.start, lastKeyAt.end) : undefined;
  return { revision, kvs, more, count, lastKey };
}
