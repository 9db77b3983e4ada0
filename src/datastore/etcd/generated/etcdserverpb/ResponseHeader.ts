// Original file: src/datastore/etcd/proto/rpc.proto

import type { Long } from '@grpc/proto-loader';

export interface ResponseHeader {
  /**
   * cluster_id is the ID of the cluster which sent the response.
   */
  'cluster_id'?: (number | string | Long);
  /**
   * member_id is the ID of the member which sent the response.
   */
  'member_id'?: (number | string | Long);
  /**
   * revision is the key-value store revision when the request was applied.
   * For watch progress responses, the header.revision indicates progress. All future events
   * recieved in this stream are guaranteed to have a higher revision number than the
   * header.revision number.
   */
  'revision'?: (number | string | Long);
  /**
   * raft_term is the raft term when the request was applied.
   */
  'raft_term'?: (number | string | Long);
}

export interface ResponseHeader__Output {
  /**
   * cluster_id is the ID of the cluster which sent the response.
   */
  'cluster_id': (number);
  /**
   * member_id is the ID of the member which sent the response.
   */
  'member_id': (number);
  /**
   * revision is the key-value store revision when the request was applied.
   * For watch progress responses, the header.revision indicates progress. All future events
   * recieved in this stream are guaranteed to have a higher revision number than the
   * header.revision number.
   */
  'revision': (number);
  /**
   * raft_term is the raft term when the request was applied.
   */
  'raft_term': (number);
}
