// Original file: src/datastore/etcd/proto/rpc.proto

import type { Long } from '@grpc/proto-loader';

export interface PutRequest {
  /**
   * key is the key, in bytes, to put into the key-value store.
   */
  'key'?: (Buffer | Uint8Array | string);
  /**
   * value is the value, in bytes, to associate with the key in the key-value store.
   */
  'value'?: (Buffer | Uint8Array | string);
  /**
   * lease is the lease ID to associate with the key in the key-value store. A lease
   * value of 0 indicates no lease.
   */
  'lease'?: (number | string | Long);
  /**
   * If prev_kv is set, etcd gets the previous key-value pair before changing it.
   * The previous key-value pair will be returned in the put response.
   */
  'prev_kv'?: (boolean);
  /**
   * If ignore_value is set, etcd updates the key using its current value.
   * Returns an error if the key does not exist.
   */
  'ignore_value'?: (boolean);
  /**
   * If ignore_lease is set, etcd updates the key using its current lease.
   * Returns an error if the key does not exist.
   */
  'ignore_lease'?: (boolean);
}

export interface PutRequest__Output {
  /**
   * key is the key, in bytes, to put into the key-value store.
   */
  'key': (Buffer);
  /**
   * value is the value, in bytes, to associate with the key in the key-value store.
   */
  'value': (Buffer);
  /**
   * lease is the lease ID to associate with the key in the key-value store. A lease
   * value of 0 indicates no lease.
   */
  'lease': (number);
  /**
   * If prev_kv is set, etcd gets the previous key-value pair before changing it.
   * The previous key-value pair will be returned in the put response.
   */
  'prev_kv': (boolean);
  /**
   * If ignore_value is set, etcd updates the key using its current value.
   * Returns an error if the key does not exist.
   */
  'ignore_value': (boolean);
  /**
   * If ignore_lease is set, etcd updates the key using its current lease.
   * Returns an error if the key does not exist.
   */
  'ignore_lease': (boolean);
}
