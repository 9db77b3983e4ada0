// Original file: src/datastore/etcd/proto/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';

export interface AuthenticateResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  /**
   * token is an authorized token that can be used in succeeding RPCs
   */
  'token'?: (string);
}

export interface AuthenticateResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  /**
   * token is an authorized token that can be used in succeeding RPCs
   */
  'token': (string);
}
