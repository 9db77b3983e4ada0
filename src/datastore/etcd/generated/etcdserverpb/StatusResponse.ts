// Original file: src/datastore/etcd/proto/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';
import type { Long } from '@grpc/proto-loader';

export interface StatusResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  /**
   * version is the cluster protocol version used by the responding member.
   */
  'version'?: (string);
  /**
   * dbSize is the size of the backend database physically allocated, in bytes, of the responding member.
   */
  'dbSize'?: (number | string | Long);
  /**
   * leader is the member ID which the responding member believes is the current leader.
   */
  'leader'?: (number | string | Long);
  /**
   * raftIndex is the current raft committed index of the responding member.
   */
  'raftIndex'?: (number | string | Long);
  /**
   * raftTerm is the current raft term of the responding member.
   */
  'raftTerm'?: (number | string | Long);
  /**
   * raftAppliedIndex is the current raft applied index of the responding member.
   */
  'raftAppliedIndex'?: (number | string | Long);
  /**
   * errors contains alarm/health information and status.
   */
  'errors'?: (string)[];
  /**
   * dbSizeInUse is the size of the backend database logically in use, in bytes, of the responding member.
   */
  'dbSizeInUse'?: (number | string | Long);
  /**
   * isLearner indicates if the member is raft learner.
   */
  'isLearner'?: (boolean);
}

export interface StatusResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  /**
   * version is the cluster protocol version used by the responding member.
   */
  'version': (string);
  /**
   * dbSize is the size of the backend database physically allocated, in bytes, of the responding member.
   */
  'dbSize': (number);
  /**
   * leader is the member ID which the responding member believes is the current leader.
   */
  'leader': (number);
  /**
   * raftIndex is the current raft committed index of the responding member.
   */
  'raftIndex': (number);
  /**
   * raftTerm is the current raft term of the responding member.
   */
  'raftTerm': (number);
  /**
   * raftAppliedIndex is the current raft applied index of the responding member.
   */
  'raftAppliedIndex': (number);
  /**
   * errors contains alarm/health information and status.
   */
  'errors': (string)[];
  /**
   * dbSizeInUse is the size of the backend database logically in use, in bytes, of the responding member.
   */
  'dbSizeInUse': (number);
  /**
   * isLearner indicates if the member is raft learner.
   */
  'isLearner': (boolean);
}
