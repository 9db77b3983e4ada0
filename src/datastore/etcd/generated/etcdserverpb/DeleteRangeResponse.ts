// Original file: src/datastore/etcd/proto/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';
import type { KeyValue as _mvccpb_KeyValue, KeyValue__Output as _mvccpb_KeyValue__Output } from '../mvccpb/KeyValue.js';
import type { Long } from '@grpc/proto-loader';

export interface DeleteRangeResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  /**
   * deleted is the number of keys deleted by the delete range request.
   */
  'deleted'?: (number | string | Long);
  /**
   * if prev_kv is set in the request, the previous key-value pairs will be returned.
   */
  'prev_kvs'?: (_mvccpb_KeyValue)[];
}

export interface DeleteRangeResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  /**
   * deleted is the number of keys deleted by the delete range request.
   */
  'deleted': (number);
  /**
   * if prev_kv is set in the request, the previous key-value pairs will be returned.
   */
  'prev_kvs': (_mvccpb_KeyValue__Output)[];
}
