// Original file: src/datastore/etcd/proto/rpc.proto


export interface AuthRoleGetRequest {
  'role'?: (string);
}

export interface AuthRoleGetRequest__Output {
  'role': (string);
}
