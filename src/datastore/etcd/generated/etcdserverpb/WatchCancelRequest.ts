// Original file: src/datastore/etcd/proto/rpc.proto

import type { Long } from '@grpc/proto-loader';

export interface WatchCancelRequest {
  /**
   * watch_id is the watcher id to cancel so that no more events are transmitted.
   */
  'watch_id'?: (number | string | Long);
}

export interface WatchCancelRequest__Output {
  /**
   * watch_id is the watcher id to cancel so that no more events are transmitted.
   */
  'watch_id': (number);
}
