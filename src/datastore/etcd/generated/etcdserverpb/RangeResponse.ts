// Original file: src/datastore/etcd/proto/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';
import type { KeyValue as _mvccpb_KeyValue, KeyValue__Output as _mvccpb_KeyValue__Output } from '../mvccpb/KeyValue.js';
import type { Long } from '@grpc/proto-loader';

export interface RangeResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  /**
   * kvs is the list of key-value pairs matched by the range request.
   * kvs is empty when count is requested.
   */
  'kvs'?: (_mvccpb_KeyValue)[];
  /**
   * more indicates if there are more keys to return in the requested range.
   */
  'more'?: (boolean);
  /**
   * count is set to the number of keys within the range when requested.
   */
  'count'?: (number | string | Long);
}

export interface RangeResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  /**
   * kvs is the list of key-value pairs matched by the range request.
   * kvs is empty when count is requested.
   */
  'kvs': (_mvccpb_KeyValue__Output)[];
  /**
   * more indicates if there are more keys to return in the requested range.
   */
  'more': (boolean);
  /**
   * count is set to the number of keys within the range when requested.
   */
  'count': (number);
}
