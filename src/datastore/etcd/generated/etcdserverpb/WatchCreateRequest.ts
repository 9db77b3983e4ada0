// Original file: src/datastore/etcd/proto/rpc.proto

import type { Long } from '@grpc/proto-loader';

// Original file: src/datastore/etcd/proto/rpc.proto

export const _etcdserverpb_WatchCreateRequest_FilterType = {
  /**
   * filter out put event.
   */
  Noput: 'Noput',
  /**
   * filter out delete event.
   */
  Nodelete: 'Nodelete',
} as const;

export type _etcdserverpb_WatchCreateRequest_FilterType =
  /**
   * filter out put event.
   */
  | 'Noput'
  | 0
  /**
   * filter out delete event.
   */
  | 'Nodelete'
  | 1

export type _etcdserverpb_WatchCreateRequest_FilterType__Output = typeof _etcdserverpb_WatchCreateRequest_FilterType[keyof typeof _etcdserverpb_WatchCreateRequest_FilterType]

export interface WatchCreateRequest {
  /**
   * key is the key to register for watching.
   */
  'key'?: (Buffer | Uint8Array | string);
  /**
   * range_end is the end of the range [key, range_end) to watch. If range_end is not given,
   * only the key argument is watched. If range_end is equal to '\0', all keys greater than
   * or equal to the key argument are watched.
   * If the range_end is one bit larger than the given key,
   * then all keys with the prefix (the given key) will be watched.
   */
  'range_end'?: (Buffer | Uint8Array | string);
  /**
   * start_revision is an optional revision to watch from (inclusive). No start_revision is "now".
   */
  'start_revision'?: (number | string | Long);
  /**
   * progress_notify is set so that the etcd server will periodically send a WatchResponse with
   * no events to the new watcher if there are no recent events. It is useful when clients
   * wish to recover a disconnected watcher starting from a recent known revision.
   * The etcd server may decide how often it will send notifications based on current load.
   */
  'progress_notify'?: (boolean);
  /**
   * filters filter the events at server side before it sends back to the watcher.
   */
  'filters'?: (_etcdserverpb_WatchCreateRequest_FilterType)[];
  /**
   * If prev_kv is set, created watcher gets the previous KV before the event happens.
   * If the previous KV is already compacted, nothing will be returned.
   */
  'prev_kv'?: (boolean);
  /**
   * If watch_id is provided and non-zero, it will be assigned to this watcher.
   * Since creating a watcher in etcd is not a synchronous operation,
   * this can be used ensure that ordering is correct when creating multiple
   * watchers on the same stream. Creating a watcher with an ID already in
   * use on the stream will cause an error to be returned.
   */
  'watch_id'?: (number | string | Long);
  /**
   * fragment enables splitting large revisions into multiple watch responses.
   */
  'fragment'?: (boolean);
}

export interface WatchCreateRequest__Output {
  /**
   * key is the key to register for watching.
   */
  'key': (Buffer);
  /**
   * range_end is the end of the range [key, range_end) to watch. If range_end is not given,
   * only the key argument is watched. If range_end is equal to '\0', all keys greater than
   * or equal to the key argument are watched.
   * If the range_end is one bit larger than the given key,
   * then all keys with the prefix (the given key) will be watched.
   */
  'range_end': (Buffer);
  /**
   * start_revision is an optional revision to watch from (inclusive). No start_revision is "now".
   */
  'start_revision': (number);
  /**
   * progress_notify is set so that the etcd server will periodically send a WatchResponse with
   * no events to the new watcher if there are no recent events. It is useful when clients
   * wish to recover a disconnected watcher starting from a recent known revision.
   * The etcd server may decide how often it will send notifications based on current load.
   */
  'progress_notify': (boolean);
  /**
   * filters filter the events at server side before it sends back to the watcher.
   */
  'filters': (_etcdserverpb_WatchCreateRequest_FilterType__Output)[];
  /**
   * If prev_kv is set, created watcher gets the previous KV before the event happens.
   * If the previous KV is already compacted, nothing will be returned.
   */
  'prev_kv': (boolean);
  /**
   * If watch_id is provided and non-zero, it will be assigned to this watcher.
   * Since creating a watcher in etcd is not a synchronous operation,
   * this can be used ensure that ordering is correct when creating multiple
   * watchers on the same stream. Creating a watcher with an ID already in
   * use on the stream will cause an error to be returned.
   */
  'watch_id': (number);
  /**
   * fragment enables splitting large revisions into multiple watch responses.
   */
  'fragment': (boolean);
}
