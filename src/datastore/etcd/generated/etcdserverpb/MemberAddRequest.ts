// Original file: src/datastore/etcd/proto/rpc.proto


export interface MemberAddRequest {
  /**
   * peerURLs is the list of URLs the added member will use to communicate with the cluster.
   */
  'peerURLs'?: (string)[];
  /**
   * isLearner indicates if the added member is raft learner.
   */
  'isLearner'?: (boolean);
}

export interface MemberAddRequest__Output {
  /**
   * peerURLs is the list of URLs the added member will use to communicate with the cluster.
   */
  'peerURLs': (string)[];
  /**
   * isLearner indicates if the added member is raft learner.
   */
  'isLearner': (boolean);
}
