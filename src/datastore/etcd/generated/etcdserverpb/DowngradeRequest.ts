// Original file: src/datastore/etcd/proto/rpc.proto


// Original file: src/datastore/etcd/proto/rpc.proto

export const _etcdserverpb_DowngradeRequest_DowngradeAction = {
  Validate: 'Validate',
  Enable: 'Enable',
  Cancel: 'Cancel',
} as const;

export type _etcdserverpb_DowngradeRequest_DowngradeAction =
  | 'Validate'
  | 0
  | 'Enable'
  | 1
  | 'Cancel'
  | 2

export type _etcdserverpb_DowngradeRequest_DowngradeAction__Output = typeof _etcdserverpb_DowngradeRequest_DowngradeAction[keyof typeof _etcdserverpb_DowngradeRequest_DowngradeAction]

export interface DowngradeRequest {
  /**
   * action is the kind of downgrade request to issue. The action may
   * VALIDATE the target version, DOWNGRADE the cluster version,
   * or CANCEL the current downgrading job.
   */
  'action'?: (_etcdserverpb_DowngradeRequest_DowngradeAction);
  /**
   * version is the target version to downgrade.
   */
  'version'?: (string);
}

export interface DowngradeRequest__Output {
  /**
   * action is the kind of downgrade request to issue. The action may
   * VALIDATE the target version, DOWNGRADE the cluster version,
   * or CANCEL the current downgrading job.
   */
  'action': (_etcdserverpb_DowngradeRequest_DowngradeAction__Output);
  /**
   * version is the target version to downgrade.
   */
  'version': (string);
}
