// Original file: src/datastore/etcd/proto/rpc.proto

import type { UserAddOptions as _authpb_UserAddOptions, UserAddOptions__Output as _authpb_UserAddOptions__Output } from '../authpb/UserAddOptions.js';

export interface AuthUserAddRequest {
  'name'?: (string);
  'password'?: (string);
  'options'?: (_authpb_UserAddOptions | null);
}

export interface AuthUserAddRequest__Output {
  'name': (string);
  'password': (string);
  'options': (_authpb_UserAddOptions__Output | null);
}
