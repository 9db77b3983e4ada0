// Original file: src/datastore/etcd/proto/rpc.proto


export interface AuthEnableRequest {
}

export interface AuthEnableRequest__Output {
}
