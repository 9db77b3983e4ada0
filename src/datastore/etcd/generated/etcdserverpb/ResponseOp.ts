// Original file: src/datastore/etcd/proto/rpc.proto

import type { RangeResponse as _etcdserverpb_RangeResponse, RangeResponse__Output as _etcdserverpb_RangeResponse__Output } from '../etcdserverpb/RangeResponse.js';
import type { PutResponse as _etcdserverpb_PutResponse, PutResponse__Output as _etcdserverpb_PutResponse__Output } from '../etcdserverpb/PutResponse.js';
import type { DeleteRangeResponse as _etcdserverpb_DeleteRangeResponse, DeleteRangeResponse__Output as _etcdserverpb_DeleteRangeResponse__Output } from '../etcdserverpb/DeleteRangeResponse.js';
import type { TxnResponse as _etcdserverpb_TxnResponse, TxnResponse__Output as _etcdserverpb_TxnResponse__Output } from '../etcdserverpb/TxnResponse.js';

export interface ResponseOp {
  'response_range'?: (_etcdserverpb_RangeResponse | null);
  'response_put'?: (_etcdserverpb_PutResponse | null);
  'response_delete_range'?: (_etcdserverpb_DeleteRangeResponse | null);
  'response_txn'?: (_etcdserverpb_TxnResponse | null);
  /**
   * response is a union of response types returned by a transaction.
   */
  'response'?: "response_range"|"response_put"|"response_delete_range"|"response_txn";
}

export interface ResponseOp__Output {
  'response_range'?: (_etcdserverpb_RangeResponse__Output | null);
  'response_put'?: (_etcdserverpb_PutResponse__Output | null);
  'response_delete_range'?: (_etcdserverpb_DeleteRangeResponse__Output | null);
  'response_txn'?: (_etcdserverpb_TxnResponse__Output | null);
  /**
   * response is a union of response types returned by a transaction.
   */
  'response'?: "response_range"|"response_put"|"response_delete_range"|"response_txn";
}
