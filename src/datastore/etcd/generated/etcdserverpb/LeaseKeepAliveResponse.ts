// Original file: src/datastore/etcd/proto/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';
import type { Long } from '@grpc/proto-loader';

export interface LeaseKeepAliveResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  /**
   * ID is the lease ID from the keep alive request.
   */
  'ID'?: (number | string | Long);
  /**
   * TTL is the new time-to-live for the lease.
   */
  'TTL'?: (number | string | Long);
}

export interface LeaseKeepAliveResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  /**
   * ID is the lease ID from the keep alive request.
   */
  'ID': (number);
  /**
   * TTL is the new time-to-live for the lease.
   */
  'TTL': (number);
}
