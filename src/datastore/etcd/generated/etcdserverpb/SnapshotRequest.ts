// Original file: src/datastore/etcd/proto/rpc.proto


export interface SnapshotRequest {
}

export interface SnapshotRequest__Output {
}
