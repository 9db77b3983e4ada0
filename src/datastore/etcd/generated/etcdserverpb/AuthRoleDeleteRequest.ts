// Original file: src/datastore/etcd/proto/rpc.proto


export interface AuthRoleDeleteRequest {
  'role'?: (string);
}

export interface AuthRoleDeleteRequest__Output {
  'role': (string);
}
