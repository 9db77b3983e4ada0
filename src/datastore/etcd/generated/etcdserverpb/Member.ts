// Original file: src/datastore/etcd/proto/rpc.proto

import type { Long } from '@grpc/proto-loader';

export interface Member {
  /**
   * ID is the member ID for this member.
   */
  'ID'?: (number | string | Long);
  /**
   * name is the human-readable name of the member. If the member is not started, the name will be an empty string.
   */
  'name'?: (string);
  /**
   * peerURLs is the list of URLs the member exposes to the cluster for communication.
   */
  'peerURLs'?: (string)[];
  /**
   * clientURLs is the list of URLs the member exposes to clients for communication. If the member is not started, clientURLs will be empty.
   */
  'clientURLs'?: (string)[];
  /**
   * isLearner indicates if the member is raft learner.
   */
  'isLearner'?: (boolean);
}

export interface Member__Output {
  /**
   * ID is the member ID for this member.
   */
  'ID': (number);
  /**
   * name is the human-readable name of the member. If the member is not started, the name will be an empty string.
   */
  'name': (string);
  /**
   * peerURLs is the list of URLs the member exposes to the cluster for communication.
   */
  'peerURLs': (string)[];
  /**
   * clientURLs is the list of URLs the member exposes to clients for communication. If the member is not started, clientURLs will be empty.
   */
  'clientURLs': (string)[];
  /**
   * isLearner indicates if the member is raft learner.
   */
  'isLearner': (boolean);
}
