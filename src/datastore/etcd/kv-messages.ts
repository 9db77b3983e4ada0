/**
 * The messages etcd's Watch and Range responses both carry, ResponseHeader (rpc.proto) and
 * KeyValue (kv.proto), read as the store uses them: the header's revision; a key-value's key and
 * value as text and its mod revision. Their other fields are skipped.
 */
import type { KeyValue } from '../store.js';
import { LENGTH_DELIMITED, tag, VARINT, type ProtobufReader } from './protobuf-reader.js';

const HEADER_CLUSTER_ID = tag(1, VARINT);
const HEADER_REVISION = tag(3, VARINT);
const KV_KEY = tag(1, LENGTH_DELIMITED);
const KV_MOD_REVISION = tag(3, VARINT);
const KV_VALUE = tag(5, LENGTH_DELIMITED);

/** The revision of the ResponseHeader at the cursor. */
export function headerRevision(r: ProtobufReader): number {
  let revision = 0;
  while (r.pos < r.end) {
    const t = r.varint();
    if (t === HEADER_REVISION) revision = r.varint();
    else r.skip(t & 7);
  }
  return revision;
}

/**
 * The cluster id and revision of the ResponseHeader at the cursor. The id is a uint64 read as a
 * number: beyond 2^53 it is rounded, the same id always the same way (it is only compared).
 */
export function headerClusterAndRevision(r: ProtobufReader): { clusterId: number; revision: number } {
  let clusterId = 0;
  let revision = 0;
  while (r.pos < r.end) {
    const t = r.varint();
    if (t === HEADER_CLUSTER_ID) clusterId = r.varint();
    else if (t === HEADER_REVISION) revision = r.varint();
    else r.skip(t & 7);
  }
  return { clusterId, revision };
}

/** Where a key's bytes are in the response, [start, end). */
export interface KeyBytes {
  start: number;
  end: number;
}

/**
 * The KeyValue at the cursor. `keyAt`, when given, is set to where its key's bytes are: a key
 * that is not UTF-8 does not survive the trip through text, and a listing's next page starts
 * right after the previous page's last key, byte for byte.
 */
export function keyValue(r: ProtobufReader, keyAt?: KeyBytes): KeyValue {
  let key = '';
  let value = '';
  let modRevision = 0;
  if (keyAt) keyAt.start = keyAt.end = 0;
  while (r.pos < r.end) {
    const t = r.varint();
    if (t === KV_KEY) {
      key = r.text();
      if (keyAt) {
        keyAt.start = r.start;
        keyAt.end = r.pos;
      }
    } else if (t === KV_VALUE) value = r.text();
    else if (t === KV_MOD_REVISION) modRevision = r.varint();
    else r.skip(t & 7);
  }
  return { key, value, modRevision };
}
