// Original file: src/datastore/etcd/proto/rpc.proto


export interface AuthStatusRequest {
}

export interface AuthStatusRequest__Output {
}
