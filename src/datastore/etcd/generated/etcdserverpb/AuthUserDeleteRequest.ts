// Original file: src/datastore/etcd/proto/rpc.proto


export interface AuthUserDeleteRequest {
  /**
   * name is the name of the user to delete.
   */
  'name'?: (string);
}

export interface AuthUserDeleteRequest__Output {
  /**
   * name is the name of the user to delete.
   */
  'name': (string);
}
