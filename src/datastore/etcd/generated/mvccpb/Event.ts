// Original file: src/datastore/etcd/proto/kv.proto

import type { KeyValue as _mvccpb_KeyValue, KeyValue__Output as _mvccpb_KeyValue__Output } from '../mvccpb/KeyValue.js';

// Original file: src/datastore/etcd/proto/kv.proto

export const _mvccpb_Event_EventType = {
  Put: 'Put',
  Delete: 'Delete',
} as const;

export type _mvccpb_Event_EventType =
  | 'Put'
  | 0
  | 'Delete'
  | 1

export type _mvccpb_Event_EventType__Output = typeof _mvccpb_Event_EventType[keyof typeof _mvccpb_Event_EventType]

export interface Event {
  /**
   * type is the kind of event. If type is a PUT, it indicates
   * new data has been stored to the key. If type is a DELETE,
   * it indicates the key was deleted.
   */
  'type'?: (_mvccpb_Event_EventType);
  /**
   * kv holds the KeyValue for the event.
   * A PUT event contains current kv pair.
   * A PUT event with kv.Version=1 indicates the creation of a key.
   * A DELETE/EXPIRE event contains the deleted key with
   * its modification revision set to the revision of deletion.
   */
  'kv'?: (_mvccpb_KeyValue | null);
  /**
   * prev_kv holds the key-value pair before the event happens.
   */
  'prev_kv'?: (_mvccpb_KeyValue | null);
}

export interface Event__Output {
  /**
   * type is the kind of event. If type is a PUT, it indicates
   * new data has been stored to the key. If type is a DELETE,
   * it indicates the key was deleted.
   */
  'type': (_mvccpb_Event_EventType__Output);
  /**
   * kv holds the KeyValue for the event.
   * A PUT event contains current kv pair.
   * A PUT event with kv.Version=1 indicates the creation of a key.
   * A DELETE/EXPIRE event contains the deleted key with
   * its modification revision set to the revision of deletion.
   */
  'kv': (_mvccpb_KeyValue__Output | null);
  /**
   * prev_kv holds the key-value pair before the event happens.
   */
  'prev_kv': (_mvccpb_KeyValue__Output | null);
}
