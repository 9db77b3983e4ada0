// Original file: src/datastore/etcd/proto/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';

export interface DowngradeResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  /**
   * version is the current cluster version.
   */
  'version'?: (string);
}

export interface DowngradeResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  /**
   * version is the current cluster version.
   */
  'version': (string);
}
