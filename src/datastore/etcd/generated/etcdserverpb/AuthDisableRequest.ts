// Original file: src/datastore/etcd/proto/rpc.proto


export interface AuthDisableRequest {
}

export interface AuthDisableRequest__Output {
}
