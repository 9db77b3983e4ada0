// Original file: src/datastore/etcd/proto/rpc.proto

import type { Long } from '@grpc/proto-loader';

export interface LeaseKeepAliveRequest {
  /**
   * ID is the lease ID for the lease to keep alive.
   */
  'ID'?: (number | string | Long);
}

export interface LeaseKeepAliveRequest__Output {
  /**
   * ID is the lease ID for the lease to keep alive.
   */
  'ID': (number);
}
