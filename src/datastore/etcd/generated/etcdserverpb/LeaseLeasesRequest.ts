// Original file: src/datastore/etcd/proto/rpc.proto


export interface LeaseLeasesRequest {
}

export interface LeaseLeasesRequest__Output {
}
