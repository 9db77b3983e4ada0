// Original file: src/datastore/etcd/proto/rpc.proto


export interface AuthRoleAddRequest {
  /**
   * name is the name of the role to add to the authentication system.
   */
  'name'?: (string);
}

export interface AuthRoleAddRequest__Output {
  /**
   * name is the name of the role to add to the authentication system.
   */
  'name': (string);
}
