// Original file: src/datastore/etcd/proto/rpc.proto

import type { Long } from '@grpc/proto-loader';

export interface MemberRemoveRequest {
  /**
   * ID is the member ID of the member to remove.
   */
  'ID'?: (number | string | Long);
}

export interface MemberRemoveRequest__Output {
  /**
   * ID is the member ID of the member to remove.
   */
  'ID': (number);
}
