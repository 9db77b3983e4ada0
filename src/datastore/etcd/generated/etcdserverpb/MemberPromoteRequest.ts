// Original file: src/datastore/etcd/proto/rpc.proto

import type { Long } from '@grpc/proto-loader';

export interface MemberPromoteRequest {
  /**
   * ID is the member ID of the member to promote.
   */
  'ID'?: (number | string | Long);
}

export interface MemberPromoteRequest__Output {
  /**
   * ID is the member ID of the member to promote.
   */
  'ID': (number);
}
