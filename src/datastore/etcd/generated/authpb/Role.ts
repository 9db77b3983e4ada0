// Original file: src/datastore/etcd/proto/auth.proto

import type { Permission as _authpb_Permission, Permission__Output as _authpb_Permission__Output } from '../authpb/Permission.js';

/**
 * Role is a single entry in the bucket authRoles
 */
export interface Role {
  'name'?: (Buffer | Uint8Array | string);
  'keyPermission'?: (_authpb_Permission)[];
}

/**
 * Role is a single entry in the bucket authRoles
 */
export interface Role__Output {
  'name': (Buffer);
  'keyPermission': (_authpb_Permission__Output)[];
}
