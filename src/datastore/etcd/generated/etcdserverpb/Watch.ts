// Original file: src/datastore/etcd/proto/rpc.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { WatchRequest as _etcdserverpb_WatchRequest, WatchRequest__Output as _etcdserverpb_WatchRequest__Output } from '../etcdserverpb/WatchRequest.js';
import type { WatchResponse as _etcdserverpb_WatchResponse, WatchResponse__Output as _etcdserverpb_WatchResponse__Output } from '../etcdserverpb/WatchResponse.js';

export interface WatchClient extends grpc.Client {
  /**
   * Watch watches for events happening or that have happened. Both input and output
   * are streams; the input stream is for creating and canceling watchers and the output
   * stream sends events. One watch RPC can watch on multiple key ranges, streaming events
   * for several watches at once. The entire event history can be watched starting from the
   * last compaction revision.
   */
  Watch(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_etcdserverpb_WatchRequest, _etcdserverpb_WatchResponse__Output>;
  Watch(options?: grpc.CallOptions): grpc.ClientDuplexStream<_etcdserverpb_WatchRequest, _etcdserverpb_WatchResponse__Output>;
  /**
   * Watch watches for events happening or that have happened. Both input and output
   * are streams; the input stream is for creating and canceling watchers and the output
   * stream sends events. One watch RPC can watch on multiple key ranges, streaming events
   * for several watches at once. The entire event history can be watched starting from the
   * last compaction revision.
   */
  watch(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_etcdserverpb_WatchRequest, _etcdserverpb_WatchResponse__Output>;
  watch(options?: grpc.CallOptions): grpc.ClientDuplexStream<_etcdserverpb_WatchRequest, _etcdserverpb_WatchResponse__Output>;
  
}

export interface WatchHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Watch watches for events happening or that have happened. Both input and output
   * are streams; the input stream is for creating and canceling watchers and the output
   * stream sends events. One watch RPC can watch on multiple key ranges, streaming events
   * for several watches at once. The entire event history can be watched starting from the
   * last compaction revision.
   */
  Watch: grpc.handleBidiStreamingCall<_etcdserverpb_WatchRequest__Output, _etcdserverpb_WatchResponse>;
  
}

export interface WatchDefinition extends grpc.ServiceDefinition {
  Watch: MethodDefinition<_etcdserverpb_WatchRequest, _etcdserverpb_WatchResponse, _etcdserverpb_WatchRequest__Output, _etcdserverpb_WatchResponse__Output>
}
