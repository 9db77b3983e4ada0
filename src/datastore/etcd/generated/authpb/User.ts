// Original file: src/datastore/etcd/proto/auth.proto

import type { UserAddOptions as _authpb_UserAddOptions, UserAddOptions__Output as _authpb_UserAddOptions__Output } from '../authpb/UserAddOptions.js';

/**
 * User is a single entry in the bucket authUsers
 */
export interface User {
  'name'?: (Buffer | Uint8Array | string);
  'password'?: (Buffer | Uint8Array | string);
  'roles'?: (string)[];
  'options'?: (_authpb_UserAddOptions | null);
}

/**
 * User is a single entry in the bucket authUsers
 */
export interface User__Output {
  'name': (Buffer);
  'password': (Buffer);
  'roles': (string)[];
  'options': (_authpb_UserAddOptions__Output | null);
}
