// Original file: src/datastore/etcd/proto/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';
import type { ResponseOp as _etcdserverpb_ResponseOp, ResponseOp__Output as _etcdserverpb_ResponseOp__Output } from '../etcdserverpb/ResponseOp.js';

export interface TxnResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  /**
   * succeeded is set to true if the compare evaluated to true or false otherwise.
   */
  'succeeded'?: (boolean);
  /**
   * responses is a list of responses corresponding to the results from applying
   * success if succeeded is true or failure if succeeded is false.
   */
  'responses'?: (_etcdserverpb_ResponseOp)[];
}

export interface TxnResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  /**
   * succeeded is set to true if the compare evaluated to true or false otherwise.
   */
  'succeeded': (boolean);
  /**
   * responses is a list of responses corresponding to the results from applying
   * success if succeeded is true or failure if succeeded is false.
   */
  'responses': (_etcdserverpb_ResponseOp__Output)[];
}
