// Original file: src/datastore/etcd/proto/rpc.proto


export interface DeleteRangeRequest {
  /**
   * key is the first key to delete in the range.
   */
  'key'?: (Buffer | Uint8Array | string);
  /**
   * range_end is the key following the last key to delete for the range [key, range_end).
   * If range_end is not given, the range is defined to contain only the key argument.
   * If range_end is one bit larger than the given key, then the range is all the keys
   * with the prefix (the given key).
   * If range_end is '\0', the range is all keys greater than or equal to the key argument.
   */
  'range_end'?: (Buffer | Uint8Array | string);
  /**
   * If prev_kv is set, etcd gets the previous key-value pairs before deleting it.
   * The previous key-value pairs will be returned in the delete response.
   */
  'prev_kv'?: (boolean);
}

export interface DeleteRangeRequest__Output {
  /**
   * key is the first key to delete in the range.
   */
  'key': (Buffer);
  /**
   * range_end is the key following the last key to delete for the range [key, range_end).
   * If range_end is not given, the range is defined to contain only the key argument.
   * If range_end is one bit larger than the given key, then the range is all the keys
   * with the prefix (the given key).
   * If range_end is '\0', the range is all keys greater than or equal to the key argument.
   */
  'range_end': (Buffer);
  /**
   * If prev_kv is set, etcd gets the previous key-value pairs before deleting it.
   * The previous key-value pairs will be returned in the delete response.
   */
  'prev_kv': (boolean);
}
