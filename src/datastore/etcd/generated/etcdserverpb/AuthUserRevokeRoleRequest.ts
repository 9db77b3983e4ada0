// Original file: src/datastore/etcd/proto/rpc.proto


export interface AuthUserRevokeRoleRequest {
  'name'?: (string);
  'role'?: (string);
}

export interface AuthUserRevokeRoleRequest__Output {
  'name': (string);
  'role': (string);
}
