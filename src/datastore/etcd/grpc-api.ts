/**
 * etcd v3's gRPC services as vppnet calls them: etcd's protos (./proto) loaded by
 * @grpc/proto-loader, typed by what proto-loader-gen-types generates from the same protos
 * (./generated, checked in; `npm run gen:etcd-types -- --check` and generated-types.test.ts fail
 * when they drift). The load options below are the generator's too, so a type says what the
 * loader hands over: numbers for int64s, strings for enums, every field present.
 */
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { AuthClient } from './generated/etcdserverpb/Auth.js';
import type { KVClient } from './generated/etcdserverpb/KV.js';
import type { RangeRequest } from './generated/etcdserverpb/RangeRequest.js';
import type { WatchRequest } from './generated/etcdserverpb/WatchRequest.js';
import type { ProtoGrpcType } from './generated/rpc.js';
import { decodeRangeResponse, type RangeResponseMessage } from './range-response.js';
import { decodeWatchResponse, type WatchResponseMessage } from './watch-response.js';

/** The protos' directory in the source tree (this file runs as dist/src/datastore/etcd/*.js). */
export const PROTO_DIR = fileURLToPath(new URL('../../../../src/datastore/etcd/proto/', import.meta.url));
/** The file that imports the others. */
export const PROTO_ROOT = 'rpc.proto';

/**
 * How the protos are loaded, at run time and by the type generator alike.
 * `longs: Number`: revisions (all vppnet reads of int64s) stay far below 2^53, and turning each
 * into a decimal string was ~15 % of what an agent allocated at 1,000 endpoint changes a second
 * (bench/fleet (c), a sampling heap profile); the random cluster and member ids lose precision as
 * numbers, and are not read.
 */
export const LOAD_OPTIONS = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
} satisfies protoLoader.Options;

type EtcdServices = ProtoGrpcType['etcdserverpb'];
let loaded: EtcdServices | undefined;

function services(): EtcdServices {
  if (loaded !== undefined) return loaded;
  const pkg = grpc.loadPackageDefinition(
    protoLoader.loadSync(PROTO_ROOT, { ...LOAD_OPTIONS, includeDirs: [PROTO_DIR] }),
  ).etcdserverpb;
  if (!isEtcdServices(pkg))
    throw new Error(`etcd protos (${PROTO_DIR}): no KV, Auth and Watch services in etcdserverpb`);
  return (loaded = pkg);
}

/**
 * The one place the generated types meet the loader, whose output TypeScript cannot see: what
 * loadPackageDefinition returns for these protos and options is the generated ProtoGrpcType
 * (proto-loader's documented pairing, held by generated-types.test.ts); checked here as far as
 * vppnet relies on it, the three service client constructors it builds.
 */
function isEtcdServices(pkg: unknown): pkg is EtcdServices {
  return (
    typeof pkg === 'object' &&
    pkg !== null &&
    'KV' in pkg &&
    isServiceClient(pkg.KV) &&
    'Auth' in pkg &&
    isServiceClient(pkg.Auth) &&
    'Watch' in pkg &&
    isServiceClient(pkg.Watch)
  );
}

function isServiceClient(v: unknown): boolean {
  return typeof v === 'function' && 'service' in v && typeof v.service === 'object' && v.service !== null;
}

/** The clients of one etcd member, on one channel. */
export interface EtcdClients {
  readonly kv: KVClient;
  readonly auth: AuthClient;
  /**
   * KV.Range, its response decoded by decodeRangeResponse (range-response.ts says why not by
   * proto-loader); otherwise the call kv.Range makes.
   */
  range(
    request: RangeRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    done: grpc.requestCallback<RangeResponseMessage>,
  ): void;
  /**
   * A Watch stream whose responses are decoded by decodeWatchResponse (watch-response.ts says
   * why not by proto-loader): requests go out as the generated WatchRequest type says.
   */
  watch(metadata: grpc.Metadata): grpc.ClientDuplexStream<WatchRequest, WatchResponseMessage>;
  close(): void;
}

export function connectEtcd(
  target: string,
  credentials: grpc.ChannelCredentials,
  channelOptions: grpc.ChannelOptions,
): EtcdClients {
  const pb = services();
  const kv = new pb.KV(target, credentials, channelOptions);
  // The other services share the KV client's channel.
  const auth = new pb.Auth(target, credentials, { channelOverride: kv.getChannel() });
  const range = pb.KV.service.Range;
  const watch = pb.Watch.service.Watch;
  return {
    kv,
    auth,
    range: (request, metadata, options, done) =>
      void kv.makeUnaryRequest(
        range.path,
        range.requestSerialize,
        decodeRangeResponse,
        request,
        metadata,
        options,
        done,
      ),
    watch: (metadata) =>
      kv.makeBidiStreamRequest(watch.path, watch.requestSerialize, decodeWatchResponse, metadata),
    close: () => kv.close(),
  };
}
