// Original file: src/datastore/etcd/proto/rpc.proto

import type { Long } from '@grpc/proto-loader';

// Original file: src/datastore/etcd/proto/rpc.proto

export const _etcdserverpb_Compare_CompareResult = {
  Equal: 'Equal',
  Greater: 'Greater',
  Less: 'Less',
  NotEqual: 'NotEqual',
} as const;

export type _etcdserverpb_Compare_CompareResult =
  | 'Equal'
  | 0
  | 'Greater'
  | 1
  | 'Less'
  | 2
  | 'NotEqual'
  | 3

export type _etcdserverpb_Compare_CompareResult__Output = typeof _etcdserverpb_Compare_CompareResult[keyof typeof _etcdserverpb_Compare_CompareResult]

// Original file: src/datastore/etcd/proto/rpc.proto

export const _etcdserverpb_Compare_CompareTarget = {
  Version: 'Version',
  Create: 'Create',
  Mod: 'Mod',
  Value: 'Value',
  Lease: 'Lease',
} as const;

export type _etcdserverpb_Compare_CompareTarget =
  | 'Version'
  | 0
  | 'Create'
  | 1
  | 'Mod'
  | 2
  | 'Value'
  | 3
  | 'Lease'
  | 4

export type _etcdserverpb_Compare_CompareTarget__Output = typeof _etcdserverpb_Compare_CompareTarget[keyof typeof _etcdserverpb_Compare_CompareTarget]

export interface Compare {
  /**
   * result is logical comparison operation for this comparison.
   */
  'result'?: (_etcdserverpb_Compare_CompareResult);
  /**
   * target is the key-value field to inspect for the comparison.
   */
  'target'?: (_etcdserverpb_Compare_CompareTarget);
  /**
   * key is the subject key for the comparison operation.
   */
  'key'?: (Buffer | Uint8Array | string);
  /**
   * version is the version of the given key
   */
  'version'?: (number | string | Long);
  /**
   * create_revision is the creation revision of the given key
   */
  'create_revision'?: (number | string | Long);
  /**
   * mod_revision is the last modified revision of the given key.
   */
  'mod_revision'?: (number | string | Long);
  /**
   * value is the value of the given key, in bytes.
   */
  'value'?: (Buffer | Uint8Array | string);
  /**
   * lease is the lease id of the given key.
   */
  'lease'?: (number | string | Long);
  /**
   * range_end compares the given target to all keys in the range [key, range_end).
   * See RangeRequest for more details on key ranges.
   */
  'range_end'?: (Buffer | Uint8Array | string);
  'target_union'?: "version"|"create_revision"|"mod_revision"|"value"|"lease";
}

export interface Compare__Output {
  /**
   * result is logical comparison operation for this comparison.
   */
  'result': (_etcdserverpb_Compare_CompareResult__Output);
  /**
   * target is the key-value field to inspect for the comparison.
   */
  'target': (_etcdserverpb_Compare_CompareTarget__Output);
  /**
   * key is the subject key for the comparison operation.
   */
  'key': (Buffer);
  /**
   * version is the version of the given key
   */
  'version'?: (number);
  /**
   * create_revision is the creation revision of the given key
   */
  'create_revision'?: (number);
  /**
   * mod_revision is the last modified revision of the given key.
   */
  'mod_revision'?: (number);
  /**
   * value is the value of the given key, in bytes.
   */
  'value'?: (Buffer);
  /**
   * lease is the lease id of the given key.
   */
  'lease'?: (number);
  /**
   * range_end compares the given target to all keys in the range [key, range_end).
   * See RangeRequest for more details on key ranges.
   */
  'range_end': (Buffer);
  'target_union'?: "version"|"create_revision"|"mod_revision"|"value"|"lease";
}
