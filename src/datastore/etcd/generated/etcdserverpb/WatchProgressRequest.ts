// Original file: src/datastore/etcd/proto/rpc.proto


/**
 * Requests the a watch stream progress status be sent in the watch response stream as soon as
 * possible.
 */
export interface WatchProgressRequest {
}

/**
 * Requests the a watch stream progress status be sent in the watch response stream as soon as
 * possible.
 */
export interface WatchProgressRequest__Output {
}
