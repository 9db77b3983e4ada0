// Original file: src/datastore/etcd/proto/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';

export interface AuthRoleAddResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
}

export interface AuthRoleAddResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
}
