// Original file: src/datastore/etcd/proto/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';
import type { Long } from '@grpc/proto-loader';

export interface LeaseGrantResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  /**
   * ID is the lease ID for the granted lease.
   */
  'ID'?: (number | string | Long);
  /**
   * TTL is the server chosen lease time-to-live in seconds.
   */
  'TTL'?: (number | string | Long);
  'error'?: (string);
}

export interface LeaseGrantResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  /**
   * ID is the lease ID for the granted lease.
   */
  'ID': (number);
  /**
   * TTL is the server chosen lease time-to-live in seconds.
   */
  'TTL': (number);
  'error': (string);
}
