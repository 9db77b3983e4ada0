// Original file: src/datastore/etcd/proto/rpc.proto

import type { LeaseCheckpoint as _etcdserverpb_LeaseCheckpoint, LeaseCheckpoint__Output as _etcdserverpb_LeaseCheckpoint__Output } from '../etcdserverpb/LeaseCheckpoint.js';

export interface LeaseCheckpointRequest {
  'checkpoints'?: (_etcdserverpb_LeaseCheckpoint)[];
}

export interface LeaseCheckpointRequest__Output {
  'checkpoints': (_etcdserverpb_LeaseCheckpoint__Output)[];
}
