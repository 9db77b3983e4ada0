// Original file: src/datastore/etcd/proto/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';
import type { Permission as _authpb_Permission, Permission__Output as _authpb_Permission__Output } from '../authpb/Permission.js';

export interface AuthRoleGetResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  'perm'?: (_authpb_Permission)[];
}

export interface AuthRoleGetResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  'perm': (_authpb_Permission__Output)[];
}
