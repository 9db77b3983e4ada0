// Original file: src/datastore/etcd/proto/rpc.proto

import type { Long } from '@grpc/proto-loader';

export interface LeaseGrantRequest {
  /**
   * TTL is the advisory time-to-live in seconds. Expired lease will return -1.
   */
  'TTL'?: (number | string | Long);
  /**
   * ID is the requested ID for the lease. If ID is set to 0, the lessor chooses an ID.
   */
  'ID'?: (number | string | Long);
}

export interface LeaseGrantRequest__Output {
  /**
   * TTL is the advisory time-to-live in seconds. Expired lease will return -1.
   */
  'TTL': (number);
  /**
   * ID is the requested ID for the lease. If ID is set to 0, the lessor chooses an ID.
   */
  'ID': (number);
}
