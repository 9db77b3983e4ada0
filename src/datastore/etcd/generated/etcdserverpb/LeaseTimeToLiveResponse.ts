// Original file: src/datastore/etcd/proto/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';
import type { Long } from '@grpc/proto-loader';

export interface LeaseTimeToLiveResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  /**
   * ID is the lease ID from the keep alive request.
   */
  'ID'?: (number | string | Long);
  /**
   * TTL is the remaining TTL in seconds for the lease; the lease will expire in under TTL+1 seconds.
   */
  'TTL'?: (number | string | Long);
  /**
   * GrantedTTL is the initial granted time in seconds upon lease creation/renewal.
   */
  'grantedTTL'?: (number | string | Long);
  /**
   * Keys is the list of keys attached to this lease.
   */
  'keys'?: (Buffer | Uint8Array | string)[];
}

export interface LeaseTimeToLiveResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  /**
   * ID is the lease ID from the keep alive request.
   */
  'ID': (number);
  /**
   * TTL is the remaining TTL in seconds for the lease; the lease will expire in under TTL+1 seconds.
   */
  'TTL': (number);
  /**
   * GrantedTTL is the initial granted time in seconds upon lease creation/renewal.
   */
  'grantedTTL': (number);
  /**
   * Keys is the list of keys attached to this lease.
   */
  'keys': (Buffer)[];
}
