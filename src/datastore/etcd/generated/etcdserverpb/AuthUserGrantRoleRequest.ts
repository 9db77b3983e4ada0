// Original file: src/datastore/etcd/proto/rpc.proto


export interface AuthUserGrantRoleRequest {
  /**
   * user is the name of the user which should be granted a given role.
   */
  'user'?: (string);
  /**
   * role is the name of the role to grant to the user.
   */
  'role'?: (string);
}

export interface AuthUserGrantRoleRequest__Output {
  /**
   * user is the name of the user which should be granted a given role.
   */
  'user': (string);
  /**
   * role is the name of the role to grant to the user.
   */
  'role': (string);
}
