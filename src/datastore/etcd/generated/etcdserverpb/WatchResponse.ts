// Original file: src/datastore/etcd/proto/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';
import type { Event as _mvccpb_Event, Event__Output as _mvccpb_Event__Output } from '../mvccpb/Event.js';
import type { Long } from '@grpc/proto-loader';

export interface WatchResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  /**
   * watch_id is the ID of the watcher that corresponds to the response.
   */
  'watch_id'?: (number | string | Long);
  /**
   * created is set to true if the response is for a create watch request.
   * The client should record the watch_id and expect to receive events for
   * the created watcher from the same stream.
   * All events sent to the created watcher will attach with the same watch_id.
   */
  'created'?: (boolean);
  /**
   * canceled is set to true if the response is for a cancel watch request.
   * No further events will be sent to the canceled watcher.
   */
  'canceled'?: (boolean);
  /**
   * compact_revision is set to the minimum index if a watcher tries to watch
   * at a compacted index.
   * 
   * This happens when creating a watcher at a compacted revision or the watcher cannot
   * catch up with the progress of the key-value store.
   * 
   * The client should treat the watcher as canceled and should not try to create any
   * watcher with the same start_revision again.
   */
  'compact_revision'?: (number | string | Long);
  /**
   * cancel_reason indicates the reason for canceling the watcher.
   */
  'cancel_reason'?: (string);
  /**
   * framgment is true if large watch response was split over multiple responses.
   */
  'fragment'?: (boolean);
  'events'?: (_mvccpb_Event)[];
}

export interface WatchResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  /**
   * watch_id is the ID of the watcher that corresponds to the response.
   */
  'watch_id': (number);
  /**
   * created is set to true if the response is for a create watch request.
   * The client should record the watch_id and expect to receive events for
   * the created watcher from the same stream.
   * All events sent to the created watcher will attach with the same watch_id.
   */
  'created': (boolean);
  /**
   * canceled is set to true if the response is for a cancel watch request.
   * No further events will be sent to the canceled watcher.
   */
  'canceled': (boolean);
  /**
   * compact_revision is set to the minimum index if a watcher tries to watch
   * at a compacted index.
   * 
   * This happens when creating a watcher at a compacted revision or the watcher cannot
   * catch up with the progress of the key-value store.
   * 
   * The client should treat the watcher as canceled and should not try to create any
   * watcher with the same start_revision again.
   */
  'compact_revision': (number);
  /**
   * cancel_reason indicates the reason for canceling the watcher.
   */
  'cancel_reason': (string);
  /**
   * framgment is true if large watch response was split over multiple responses.
   */
  'fragment': (boolean);
  'events': (_mvccpb_Event__Output)[];
}
