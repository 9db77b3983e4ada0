// Original file: src/datastore/etcd/proto/rpc.proto

import type { Long } from '@grpc/proto-loader';

export interface LeaseStatus {
  'ID'?: (number | string | Long);
}

export interface LeaseStatus__Output {
  'ID': (number);
}
