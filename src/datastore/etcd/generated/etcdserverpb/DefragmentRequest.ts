// Original file: src/datastore/etcd/proto/rpc.proto


export interface DefragmentRequest {
}

export interface DefragmentRequest__Output {
}
