// Original file: src/datastore/etcd/proto/rpc.proto

import type { Long } from '@grpc/proto-loader';

export interface MoveLeaderRequest {
  /**
   * targetID is the node ID for the new leader.
   */
  'targetID'?: (number | string | Long);
}

export interface MoveLeaderRequest__Output {
  /**
   * targetID is the node ID for the new leader.
   */
  'targetID': (number);
}
