// Original file: src/datastore/etcd/proto/rpc.proto


export interface AuthUserListRequest {
}

export interface AuthUserListRequest__Output {
}
