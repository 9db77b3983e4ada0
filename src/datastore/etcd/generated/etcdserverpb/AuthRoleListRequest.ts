// Original file: src/datastore/etcd/proto/rpc.proto


export interface AuthRoleListRequest {
}

export interface AuthRoleListRequest__Output {
}
