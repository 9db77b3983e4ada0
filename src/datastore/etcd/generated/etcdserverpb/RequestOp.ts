// Original file: src/datastore/etcd/proto/rpc.proto

import type { RangeRequest as _etcdserverpb_RangeRequest, RangeRequest__Output as _etcdserverpb_RangeRequest__Output } from '../etcdserverpb/RangeRequest.js';
import type { PutRequest as _etcdserverpb_PutRequest, PutRequest__Output as _etcdserverpb_PutRequest__Output } from '../etcdserverpb/PutRequest.js';
import type { DeleteRangeRequest as _etcdserverpb_DeleteRangeRequest, DeleteRangeRequest__Output as _etcdserverpb_DeleteRangeRequest__Output } from '../etcdserverpb/DeleteRangeRequest.js';
import type { TxnRequest as _etcdserverpb_TxnRequest, TxnRequest__Output as _etcdserverpb_TxnRequest__Output } from '../etcdserverpb/TxnRequest.js';

export interface RequestOp {
  'request_range'?: (_etcdserverpb_RangeRequest | null);
  'request_put'?: (_etcdserverpb_PutRequest | null);
  'request_delete_range'?: (_etcdserverpb_DeleteRangeRequest | null);
  'request_txn'?: (_etcdserverpb_TxnRequest | null);
  /**
   * request is a union of request types accepted by a transaction.
   */
  'request'?: "request_range"|"request_put"|"request_delete_range"|"request_txn";
}

export interface RequestOp__Output {
  'request_range'?: (_etcdserverpb_RangeRequest__Output | null);
  'request_put'?: (_etcdserverpb_PutRequest__Output | null);
  'request_delete_range'?: (_etcdserverpb_DeleteRangeRequest__Output | null);
  'request_txn'?: (_etcdserverpb_TxnRequest__Output | null);
  /**
   * request is a union of request types accepted by a transaction.
   */
  'request'?: "request_range"|"request_put"|"request_delete_range"|"request_txn";
}
