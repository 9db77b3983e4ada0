// Original file: src/datastore/etcd/proto/rpc.proto

import type { AlarmType as _etcdserverpb_AlarmType, AlarmType__Output as _etcdserverpb_AlarmType__Output } from '../etcdserverpb/AlarmType.js';
import type { Long } from '@grpc/proto-loader';

export interface AlarmMember {
  /**
   * memberID is the ID of the member associated with the raised alarm.
   */
  'memberID'?: (number | string | Long);
  /**
   * alarm is the type of alarm which has been raised.
   */
  'alarm'?: (_etcdserverpb_AlarmType);
}

export interface AlarmMember__Output {
  /**
   * memberID is the ID of the member associated with the raised alarm.
   */
  'memberID': (number);
  /**
   * alarm is the type of alarm which has been raised.
   */
  'alarm': (_etcdserverpb_AlarmType__Output);
}
