// Original file: src/datastore/etcd/proto/rpc.proto

import type { Long } from '@grpc/proto-loader';

export interface MemberUpdateRequest {
  /**
   * ID is the member ID of the member to update.
   */
  'ID'?: (number | string | Long);
  /**
   * peerURLs is the new list of URLs the member will use to communicate with the cluster.
   */
  'peerURLs'?: (string)[];
}

export interface MemberUpdateRequest__Output {
  /**
   * ID is the member ID of the member to update.
   */
  'ID': (number);
  /**
   * peerURLs is the new list of URLs the member will use to communicate with the cluster.
   */
  'peerURLs': (string)[];
}
