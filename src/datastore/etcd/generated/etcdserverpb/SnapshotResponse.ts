// Original file: src/datastore/etcd/proto/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';
import type { Long } from '@grpc/proto-loader';

export interface SnapshotResponse {
  /**
   * header has the current key-value store information. The first header in the snapshot
   * stream indicates the point in time of the snapshot.
   */
  'header'?: (_etcdserverpb_ResponseHeader | null);
  /**
   * remaining_bytes is the number of blob bytes to be sent after this message
   */
  'remaining_bytes'?: (number | string | Long);
  /**
   * blob contains the next chunk of the snapshot in the snapshot stream.
   */
  'blob'?: (Buffer | Uint8Array | string);
}

export interface SnapshotResponse__Output {
  /**
   * header has the current key-value store information. The first header in the snapshot
   * stream indicates the point in time of the snapshot.
   */
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  /**
   * remaining_bytes is the number of blob bytes to be sent after this message
   */
  'remaining_bytes': (number);
  /**
   * blob contains the next chunk of the snapshot in the snapshot stream.
   */
  'blob': (Buffer);
}
