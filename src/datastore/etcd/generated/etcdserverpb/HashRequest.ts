// Original file: src/datastore/etcd/proto/rpc.proto


export interface HashRequest {
}

export interface HashRequest__Output {
}
