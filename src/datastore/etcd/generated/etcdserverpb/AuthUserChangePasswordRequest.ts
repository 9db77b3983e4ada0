// Original file: src/datastore/etcd/proto/rpc.proto


export interface AuthUserChangePasswordRequest {
  /**
   * name is the name of the user whose password is being changed.
   */
  'name'?: (string);
  /**
   * password is the new password for the user.
   */
  'password'?: (string);
}

export interface AuthUserChangePasswordRequest__Output {
  /**
   * name is the name of the user whose password is being changed.
   */
  'name': (string);
  /**
   * password is the new password for the user.
   */
  'password': (string);
}
