// Original file: src/datastore/etcd/proto/rpc.proto

import type { Long } from '@grpc/proto-loader';

export interface LeaseCheckpoint {
  /**
   * ID is the lease ID to checkpoint.
   */
  'ID'?: (number | string | Long);
  /**
   * Remaining_TTL is the remaining time until expiry of the lease.
   */
  'remaining_TTL'?: (number | string | Long);
}

export interface LeaseCheckpoint__Output {
  /**
   * ID is the lease ID to checkpoint.
   */
  'ID': (number);
  /**
   * Remaining_TTL is the remaining time until expiry of the lease.
   */
  'remaining_TTL': (number);
}
