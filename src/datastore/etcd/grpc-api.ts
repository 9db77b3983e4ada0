/**
 * etcd v3's gRPC services as vppnet calls them: etcd's protos (./proto) loaded by
 * @grpc/proto-loader from their JSON descriptor, typed by what proto-loader-gen-types generates
 * from the same protos (both in ./generated, checked in; `npm run gen:etcd-types -- --check` and
 * generated-types.test.ts fail when they drift). The load options below are the generator's too,
 * so a type says what the loader hands over: numbers for int64s, strings for enums, every field
 * present.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { AuthClient } from './generated/etcdserverpb/Auth.js';
import type { KVClient } from './generated/etcdserverpb/KV.js';
import type { RangeRequest } from './generated/etcdserverpb/RangeRequest.js';
import type { WatchRequest } from './generated/etcdserverpb/WatchRequest.js';
import { ETCD_PROTO_DESCRIPTOR } from './generated/json-descriptor.js';
import { LOAD_OPTIONS } from './load-options.js';
import type { ProtoGrpcType } from './generated/rpc.js';
import { decodeRangeResponse, type RangeResponseMessage } from './range-response.js';
import { decodeWatchResponse, type WatchResponseMessage } from './watch-response.js';

type EtcdServices = ProtoGrpcType['etcdserverpb'];
let loaded: EtcdServices | undefined;

/**
 * From the generated descriptor, not the .proto files: nothing to find on disk beside a bundle,
 * and no parsing. The first load in a fresh process (what an agent does once) took a median 50 ms
 * of CPU against loadSync's 61–69 ms (11 alternated processes each, twice, on the 2-core dev VM;
 * wall 50–59 ms against 79–83 ms). Once both are warm they cost the same (~14–21 ms): most of
 * the rest is proto-loader building the package definition, which fromJSON does too.
 */
function services(): EtcdServices {
  if (loaded !== undefined) return loaded;
  const pkg = grpc.loadPackageDefinition(
    protoLoader.fromJSON(ETCD_PROTO_DESCRIPTOR, LOAD_OPTIONS),
  ).etcdserverpb;
  if (!isEtcdServices(pkg))
    throw new Error(
      'etcd protos (generated/json-descriptor.ts): no KV, Auth and Watch services in etcdserverpb',
    );
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
