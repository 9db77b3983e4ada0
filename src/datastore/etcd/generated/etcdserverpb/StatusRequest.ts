// Original file: src/datastore/etcd/proto/rpc.proto


export interface StatusRequest {
}

export interface StatusRequest__Output {
}
