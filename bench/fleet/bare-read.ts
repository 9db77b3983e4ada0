/**
 * What etcd alone takes to deliver one node's scope: the ranges an agent reads at its start (the
 * node records and its ports, then each of its VPCs' record and endpoints), read through a plain
 * gRPC client — @grpc/grpc-js and @grpc/proto-loader over etcd's protos, none of vppnet's
 * datastore code — and decoded. bench/fleet's (a) compares a cold start with it: the part of a
 * cold start that is etcd's, and the part that is vppnet's.
 */
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { KeySchema } from '../../src/datastore/keys.js';
import type { FleetLayout } from './layout.js';

const PROTO_DIR = fileURLToPath(new URL('../../../src/datastore/etcd/proto/', import.meta.url));

interface RangeRequest {
  readonly key: Buffer;
  readonly range_end?: Buffer;
}
interface RangeReply {
  readonly kvs: readonly { readonly key: Buffer; readonly value: Buffer }[];
}

/** The end of a prefix range: the prefix with its last byte incremented (etcd's convention). */
function prefixEnd(prefix: string): Buffer {
  const end = Buffer.from(prefix);
  end[end.length - 1] = (end[end.length - 1] as number) + 1;
  return end;
}

export interface ScopeRanges {
  /** Read first, at once: the node records, the node's ports. */
  readonly first: readonly { readonly key: string; readonly prefix: boolean }[];
  /** Read once the first are in, at once: each VPC's record and its endpoints. */
  readonly then: readonly { readonly key: string; readonly prefix: boolean }[];
}

/** The ranges agent `a` reads at its start (src/datastore/view.ts): what the bare read reads. */
export function scopeOf(schema: KeySchema, layout: FleetLayout, a: number): ScopeRanges {
  const vpcs = layout.agentVpcs(a).map((j) => layout.vpcName(j));
  return {
    first: [schema.nodesRange, schema.portsRange(layout.nodeName(a))],
    then: vpcs.flatMap((v) => [schema.vpcRange(v), schema.endpointsRange(v)]),
  };
}

/** Reads the ranges; resolves with the seconds taken and the number of keys read. */
export async function bareRead(
  endpoint: string,
  scope: ScopeRanges,
): Promise<{ seconds: number; keys: number }> {
  const definition = protoLoader.loadSync('rpc.proto', {
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
    includeDirs: [PROTO_DIR],
  });
  const KV = (grpc.loadPackageDefinition(definition).etcdserverpb as grpc.GrpcObject)
    .KV as grpc.ServiceClientConstructor;
  const method = KV.service.Range;
  if (method === undefined) throw new Error("etcd's protos have no KV.Range");
  const kv = new KV(endpoint.replace(/^https?:\/\//, ''), grpc.credentials.createInsecure(), {
    'grpc.max_receive_message_length': -1,
  });
  const range = (r: { key: string; prefix: boolean }): Promise<number> =>
    new Promise((resolve, reject) =>
      kv.makeUnaryRequest<RangeRequest, RangeReply>(
        method.path,
        method.requestSerialize,
        method.responseDeserialize,
        { key: Buffer.from(r.key), ...(r.prefix && { range_end: prefixEnd(r.key) }) },
        (err, res) => (err || !res ? reject(err ?? new Error('no reply')) : resolve(res.kvs.length)),
      ),
    );
  try {
    // The channel is connected first: a new agent's connection set-up is not etcd's reading.
    await new Promise<void>((resolve, reject) =>
      kv.waitForReady(Date.now() + 10_000, (err) => (err ? reject(err) : resolve())),
    );
    const t0 = performance.now();
    let keys = 0;
    for (const n of await Promise.all(scope.first.map(range))) keys += n;
    for (const n of await Promise.all(scope.then.map(range))) keys += n;
    return { seconds: (performance.now() - t0) / 1000, keys };
  } finally {
    kv.close();
  }
}
