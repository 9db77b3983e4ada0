// Original file: src/datastore/etcd/proto/rpc.proto

import type { Long } from '@grpc/proto-loader';

export interface LeaseTimeToLiveRequest {
  /**
   * ID is the lease ID for the lease.
   */
  'ID'?: (number | string | Long);
  /**
   * keys is true to query all the keys attached to this lease.
   */
  'keys'?: (boolean);
}

export interface LeaseTimeToLiveRequest__Output {
  /**
   * ID is the lease ID for the lease.
   */
  'ID': (number);
  /**
   * keys is true to query all the keys attached to this lease.
   */
  'keys': (boolean);
}
