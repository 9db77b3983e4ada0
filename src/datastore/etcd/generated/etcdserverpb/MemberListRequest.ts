// Original file: src/datastore/etcd/proto/rpc.proto


export interface MemberListRequest {
  'linearizable'?: (boolean);
}

export interface MemberListRequest__Output {
  'linearizable': (boolean);
}
