// Original file: src/datastore/etcd/proto/rpc.proto

export const AlarmType = {
  /**
   * default, used to query if any alarm is active
   */
  None: 'None',
  /**
   * space quota is exhausted
   */
  Nospace: 'Nospace',
  /**
   * kv store corruption detected
   */
  Corrupt: 'Corrupt',
} as const;

export type AlarmType =
  /**
   * default, used to query if any alarm is active
   */
  | 'None'
  | 0
  /**
   * space quota is exhausted
   */
  | 'Nospace'
  | 1
  /**
   * kv store corruption detected
   */
  | 'Corrupt'
  | 2

export type AlarmType__Output = typeof AlarmType[keyof typeof AlarmType]
