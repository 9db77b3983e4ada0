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
 * the six fields a watch uses with protobuf-reader.ts and skips the rest by wire type, as any
 * protobuf reader does with fields it does not know.
 */
import type { KeyValue, StoreEvent } from '../store.js';
import { headerClusterAndRevision, keyValue } from './kv-messages.js';
import { LENGTH_DELIMITED, ProtobufReader, tag, VARINT } from './protobuf-reader.js';

export interface WatchResponseMessage {
  /** header.revision: the store's revision when the response was sent. */
  readonly revision: number;
  /** header.cluster_id: the cluster that sent it. */
  readonly clusterId: number;
  readonly created: boolean;
  readonly canceled: boolean;
  readonly compactRevision: number;
  readonly cancelReason: string;
  readonly events: StoreEvent[];
}

// Field tags (rpc.proto WatchResponse; kv.proto Event).
const RESPONSE_HEADER = tag(1, LENGTH_DELIMITED);
const RESPONSE_CREATED = tag(3, VARINT);
const RESPONSE_CANCELED = tag(4, VARINT);
const RESPONSE_COMPACT_REVISION = tag(5, VARINT);
const RESPONSE_CANCEL_REASON = tag(6, LENGTH_DELIMITED);
const RESPONSE_EVENTS = tag(11, LENGTH_DELIMITED);
const EVENT_TYPE = tag(1, VARINT);
const EVENT_KV = tag(2, LENGTH_DELIMITED);
/** mvccpb.Event.EventType */
const EVENT_DELETE = 1;

export class WatchResponseDecodeError extends Error {
  constructor(message: string) {
    super(`etcd watch response: ${message}`);
    this.name = 'WatchResponseDecodeError';
  }
}

const fail = (problem: string): Error => new WatchResponseDecodeError(problem);

/** One WatchResponse from its bytes (grpc's response deserializer for Watch). */
export function decodeWatchResponse(buf: Buffer): WatchResponseMessage {
  const r = new ProtobufReader(buf, fail);
  let revision = 0;
  let clusterId = 0;
  let created = false;
  let canceled = false;
  let compactRevision = 0;
  let cancelReason = '';
  const events: StoreEvent[] = [];
  while (r.pos < r.end) {
    const t = r.varint();
    if (t === RESPONSE_HEADER) ({ clusterId, revision } = r.nested(headerClusterAndRevision));
    else if (t === RESPONSE_CREATED) created = r.varint() !== 0;
    else if (t === RESPONSE_CANCELED) canceled = r.varint() !== 0;
    else if (t === RESPONSE_COMPACT_REVISION) compactRevision = r.varint();
    else if (t === RESPONSE_CANCEL_REASON) cancelReason = r.text();
    else if (t === RESPONSE_EVENTS) events.push(r.nested(event));
    else r.skip(t & 7);
  }
  return { revision, clusterId, created, canceled, compactRevision, cancelReason, events };
}

/** An Event as the store's: its kv's key, mod revision and (for a put) value; prev_kv is skipped. */
function event(r: ProtobufReader): StoreEvent {
  let type = 0;
  let kv: KeyValue | undefined;
  while (r.pos < r.end) {
    const t = r.varint();
    if (t === EVENT_TYPE) type = r.varint();
    else if (t === EVENT_KV) kv = r.nested(keyValue);
    else r.skip(t & 7);
  }
  if (kv === undefined) throw r.fail('an event without its key-value');
  const { key, value, modRevision: revision } = kv;
  return type === EVENT_DELETE ? { type: 'delete', key, revision } : { type: 'put', key, value, revision };
}
