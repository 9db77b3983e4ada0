// Original file: src/datastore/etcd/proto/rpc.proto

import type { Permission as _authpb_Permission, Permission__Output as _authpb_Permission__Output } from '../authpb/Permission.js';

export interface AuthRoleGrantPermissionRequest {
  /**
   * name is the name of the role which will be granted the permission.
   */
  'name'?: (string);
  /**
   * perm is the permission to grant to the role.
   */
  'perm'?: (_authpb_Permission | null);
}

export interface AuthRoleGrantPermissionRequest__Output {
  /**
   * name is the name of the role which will be granted the permission.
   */
  'name': (string);
  /**
   * perm is the permission to grant to the role.
   */
  'perm': (_authpb_Permission__Output | null);
}
