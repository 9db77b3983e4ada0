// Original file: src/datastore/etcd/proto/rpc.proto

import type { AlarmType as _etcdserverpb_AlarmType, AlarmType__Output as _etcdserverpb_AlarmType__Output } from '../etcdserverpb/AlarmType.js';
import type { Long } from '@grpc/proto-loader';

// Original file: src/datastore/etcd/proto/rpc.proto

export const _etcdserverpb_AlarmRequest_AlarmAction = {
  Get: 'Get',
  Activate: 'Activate',
  Deactivate: 'Deactivate',
} as const;

export type _etcdserverpb_AlarmRequest_AlarmAction =
  | 'Get'
  | 0
  | 'Activate'
  | 1
  | 'Deactivate'
  | 2

export type _etcdserverpb_AlarmRequest_AlarmAction__Output = typeof _etcdserverpb_AlarmRequest_AlarmAction[keyof typeof _etcdserverpb_AlarmRequest_AlarmAction]

export interface AlarmRequest {
  /**
   * action is the kind of alarm request to issue. The action
   * may GET alarm statuses, ACTIVATE an alarm, or DEACTIVATE a
   * raised alarm.
   */
  'action'?: (_etcdserverpb_AlarmRequest_AlarmAction);
  /**
   * memberID is the ID of the member associated with the alarm. If memberID is 0, the
   * alarm request covers all members.
   */
  'memberID'?: (number | string | Long);
  /**
   * alarm is the type of alarm to consider for this request.
   */
  'alarm'?: (_etcdserverpb_AlarmType);
}

export interface AlarmRequest__Output {
  /**
   * action is the kind of alarm request to issue. The action
   * may GET alarm statuses, ACTIVATE an alarm, or DEACTIVATE a
   * raised alarm.
   */
  'action': (_etcdserverpb_AlarmRequest_AlarmAction__Output);
  /**
   * memberID is the ID of the member associated with the alarm. If memberID is 0, the
   * alarm request covers all members.
   */
  'memberID': (number);
  /**
   * alarm is the type of alarm to consider for this request.
   */
  'alarm': (_etcdserverpb_AlarmType__Output);
}
