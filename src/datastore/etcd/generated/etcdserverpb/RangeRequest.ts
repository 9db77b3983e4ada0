// Original file: src/datastore/etcd/proto/rpc.proto

import type { Long } from '@grpc/proto-loader';

// Original file: src/datastore/etcd/proto/rpc.proto

export const _etcdserverpb_RangeRequest_SortOrder = {
  /**
   * default, no sorting
   */
  None: 'None',
  /**
   * lowest target value first
   */
  Ascend: 'Ascend',
  /**
   * highest target value first
   */
  Descend: 'Descend',
} as const;

export type _etcdserverpb_RangeRequest_SortOrder =
  /**
   * default, no sorting
   */
  | 'None'
  | 0
  /**
   * lowest target value first
   */
  | 'Ascend'
  | 1
  /**
   * highest target value first
   */
  | 'Descend'
  | 2

export type _etcdserverpb_RangeRequest_SortOrder__Output = typeof _etcdserverpb_RangeRequest_SortOrder[keyof typeof _etcdserverpb_RangeRequest_SortOrder]

// Original file: src/datastore/etcd/proto/rpc.proto

export const _etcdserverpb_RangeRequest_SortTarget = {
  Key: 'Key',
  Version: 'Version',
  Create: 'Create',
  Mod: 'Mod',
  Value: 'Value',
} as const;

export type _etcdserverpb_RangeRequest_SortTarget =
  | 'Key'
  | 0
  | 'Version'
  | 1
  | 'Create'
  | 2
  | 'Mod'
  | 3
  | 'Value'
  | 4

export type _etcdserverpb_RangeRequest_SortTarget__Output = typeof _etcdserverpb_RangeRequest_SortTarget[keyof typeof _etcdserverpb_RangeRequest_SortTarget]

export interface RangeRequest {
  /**
   * key is the first key for the range. If range_end is not given, the request only looks up key.
   */
  'key'?: (Buffer | Uint8Array | string);
  /**
   * range_end is the upper bound on the requested range [key, range_end).
   * If range_end is '\0', the range is all keys >= key.
   * If range_end is key plus one (e.g., "aa"+1 == "ab", "a\xff"+1 == "b"),
   * then the range request gets all keys prefixed with key.
   * If both key and range_end are '\0', then the range request returns all keys.
   */
  'range_end'?: (Buffer | Uint8Array | string);
  /**
   * limit is a limit on the number of keys returned for the request. When limit is set to 0,
   * it is treated as no limit.
   */
  'limit'?: (number | string | Long);
  /**
   * revision is the point-in-time of the key-value store to use for the range.
   * If revision is less or equal to zero, the range is over the newest key-value store.
   * If the revision has been compacted, ErrCompacted is returned as a response.
   */
  'revision'?: (number | string | Long);
  /**
   * sort_order is the order for returned sorted results.
   */
  'sort_order'?: (_etcdserverpb_RangeRequest_SortOrder);
  /**
   * sort_target is the key-value field to use for sorting.
   */
  'sort_target'?: (_etcdserverpb_RangeRequest_SortTarget);
  /**
   * serializable sets the range request to use serializable member-local reads.
   * Range requests are linearizable by default; linearizable requests have higher
   * latency and lower throughput than serializable requests but reflect the current
   * consensus of the cluster. For better performance, in exchange for possible stale reads,
   * a serializable range request is served locally without needing to reach consensus
   * with other nodes in the cluster.
   */
  'serializable'?: (boolean);
  /**
   * keys_only when set returns only the keys and not the values.
   */
  'keys_only'?: (boolean);
  /**
   * count_only when set returns only the count of the keys in the range.
   */
  'count_only'?: (boolean);
  /**
   * min_mod_revision is the lower bound for returned key mod revisions; all keys with
   * lesser mod revisions will be filtered away.
   */
  'min_mod_revision'?: (number | string | Long);
  /**
   * max_mod_revision is the upper bound for returned key mod revisions; all keys with
   * greater mod revisions will be filtered away.
   */
  'max_mod_revision'?: (number | string | Long);
  /**
   * min_create_revision is the lower bound for returned key create revisions; all keys with
   * lesser create revisions will be filtered away.
   */
  'min_create_revision'?: (number | string | Long);
  /**
   * max_create_revision is the upper bound for returned key create revisions; all keys with
   * greater create revisions will be filtered away.
   */
  'max_create_revision'?: (number | string | Long);
}

export interface RangeRequest__Output {
  /**
   * key is the first key for the range. If range_end is not given, the request only looks up key.
   */
  'key': (Buffer);
  /**
   * range_end is the upper bound on the requested range [key, range_end).
   * If range_end is '\0', the range is all keys >= key.
   * If range_end is key plus one (e.g., "aa"+1 == "ab", "a\xff"+1 == "b"),
   * then the range request gets all keys prefixed with key.
   * If both key and range_end are '\0', then the range request returns all keys.
   */
  'range_end': (Buffer);
  /**
   * limit is a limit on the number of keys returned for the request. When limit is set to 0,
   * it is treated as no limit.
   */
  'limit': (number);
  /**
   * revision is the point-in-time of the key-value store to use for the range.
   * If revision is less or equal to zero, the range is over the newest key-value store.
   * If the revision has been compacted, ErrCompacted is returned as a response.
   */
  'revision': (number);
  /**
   * sort_order is the order for returned sorted results.
   */
  'sort_order': (_etcdserverpb_RangeRequest_SortOrder__Output);
  /**
   * sort_target is the key-value field to use for sorting.
   */
  'sort_target': (_etcdserverpb_RangeRequest_SortTarget__Output);
  /**
   * serializable sets the range request to use serializable member-local reads.
   * Range requests are linearizable by default; linearizable requests have higher
   * latency and lower throughput than serializable requests but reflect the current
   * consensus of the cluster. For better performance, in exchange for possible stale reads,
   * a serializable range request is served locally without needing to reach consensus
   * with other nodes in the cluster.
   */
  'serializable': (boolean);
  /**
   * keys_only when set returns only the keys and not the values.
   */
  'keys_only': (boolean);
  /**
   * count_only when set returns only the count of the keys in the range.
   */
  'count_only': (boolean);
  /**
   * min_mod_revision is the lower bound for returned key mod revisions; all keys with
   * lesser mod revisions will be filtered away.
   */
  'min_mod_revision': (number);
  /**
   * max_mod_revision is the upper bound for returned key mod revisions; all keys with
   * greater mod revisions will be filtered away.
   */
  'max_mod_revision': (number);
  /**
   * min_create_revision is the lower bound for returned key create revisions; all keys with
   * lesser create revisions will be filtered away.
   */
  'min_create_revision': (number);
  /**
   * max_create_revision is the upper bound for returned key create revisions; all keys with
   * greater create revisions will be filtered away.
   */
  'max_create_revision': (number);
}
