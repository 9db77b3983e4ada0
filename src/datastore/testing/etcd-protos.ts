/**
 * etcd's protos as the tests of the hand-written decoders load them: with the loader's own
 * options (grpc-api.ts), so proto-loader's reading of a response is what the agent would get
 * from it, and the fields of a KeyValue and an unknown field to encode into responses.
 */
import * as protoLoader from '@grpc/proto-loader';
import { LOAD_OPTIONS } from '../etcd/load-options.js';
import { PROTO_DIR, PROTO_ROOT } from '../etcd/proto-files.js';

export function etcdProtos(): protoLoader.PackageDefinition {
  return protoLoader.loadSync(PROTO_ROOT, { ...LOAD_OPTIONS, includeDirs: [PROTO_DIR] });
}

/** A kv.proto KeyValue to encode, its other fields set so that a decoder must skip them. */
export const keyValueFields = (key: string | Buffer, value: string, modRevision: number): object => ({
  key: Buffer.from(key),
  value: Buffer.from(value),
  create_revision: 3,
  mod_revision: modRevision,
  version: 7,
  lease: 12345,
});

/** A field the message does not have (with a one-byte tag: numbers up to 15), then its bytes. */
export function unknownField(field: number, wireType: number, body: number[]): Buffer {
  return Buffer.from([(field << 3) | wireType, ...body]);
}
