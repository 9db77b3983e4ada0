// Original file: src/datastore/etcd/proto/rpc.proto

import type { Long } from '@grpc/proto-loader';

/**
 * CompactionRequest compacts the key-value store up to a given revision. All superseded keys
 * with a revision less than the compaction revision will be removed.
 */
export interface CompactionRequest {
  /**
   * revision is the key-value store revision for the compaction operation.
   */
  'revision'?: (number | string | Long);
  /**
   * physical is set so the RPC will wait until the compaction is physically
   * applied to the local database such that compacted entries are totally
   * removed from the backend database.
   */
  'physical'?: (boolean);
}

/**
 * CompactionRequest compacts the key-value store up to a given revision. All superseded keys
 * with a revision less than the compaction revision will be removed.
 */
export interface CompactionRequest__Output {
  /**
   * revision is the key-value store revision for the compaction operation.
   */
  'revision': (number);
  /**
   * physical is set so the RPC will wait until the compaction is physically
   * applied to the local database such that compacted entries are totally
   * removed from the backend database.
   */
  'physical': (boolean);
}
