// Original file: src/datastore/etcd/proto/rpc.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AlarmRequest as _etcdserverpb_AlarmRequest, AlarmRequest__Output as _etcdserverpb_AlarmRequest__Output } from '../etcdserverpb/AlarmRequest.js';
import type { AlarmResponse as _etcdserverpb_AlarmResponse, AlarmResponse__Output as _etcdserverpb_AlarmResponse__Output } from '../etcdserverpb/AlarmResponse.js';
import type { DefragmentRequest as _etcdserverpb_DefragmentRequest, DefragmentRequest__Output as _etcdserverpb_DefragmentRequest__Output } from '../etcdserverpb/DefragmentRequest.js';
import type { DefragmentResponse as _etcdserverpb_DefragmentResponse, DefragmentResponse__Output as _etcdserverpb_DefragmentResponse__Output } from '../etcdserverpb/DefragmentResponse.js';
import type { DowngradeRequest as _etcdserverpb_DowngradeRequest, DowngradeRequest__Output as _etcdserverpb_DowngradeRequest__Output } from '../etcdserverpb/DowngradeRequest.js';
import type { DowngradeResponse as _etcdserverpb_DowngradeResponse, DowngradeResponse__Output as _etcdserverpb_DowngradeResponse__Output } from '../etcdserverpb/DowngradeResponse.js';
import type { HashKVRequest as _etcdserverpb_HashKVRequest, HashKVRequest__Output as _etcdserverpb_HashKVRequest__Output } from '../etcdserverpb/HashKVRequest.js';
import type { HashKVResponse as _etcdserverpb_HashKVResponse, HashKVResponse__Output as _etcdserverpb_HashKVResponse__Output } from '../etcdserverpb/HashKVResponse.js';
import type { HashRequest as _etcdserverpb_HashRequest, HashRequest__Output as _etcdserverpb_HashRequest__Output } from '../etcdserverpb/HashRequest.js';
import type { HashResponse as _etcdserverpb_HashResponse, HashResponse__Output as _etcdserverpb_HashResponse__Output } from '../etcdserverpb/HashResponse.js';
import type { MoveLeaderRequest as _etcdserverpb_MoveLeaderRequest, MoveLeaderRequest__Output as _etcdserverpb_MoveLeaderRequest__Output } from '../etcdserverpb/MoveLeaderRequest.js';
import type { MoveLeaderResponse as _etcdserverpb_MoveLeaderResponse, MoveLeaderResponse__Output as _etcdserverpb_MoveLeaderResponse__Output } from '../etcdserverpb/MoveLeaderResponse.js';
import type { SnapshotRequest as _etcdserverpb_SnapshotRequest, SnapshotRequest__Output as _etcdserverpb_SnapshotRequest__Output } from '../etcdserverpb/SnapshotRequest.js';
import type { SnapshotResponse as _etcdserverpb_SnapshotResponse, SnapshotResponse__Output as _etcdserverpb_SnapshotResponse__Output } from '../etcdserverpb/SnapshotResponse.js';
import type { StatusRequest as _etcdserverpb_StatusRequest, StatusRequest__Output as _etcdserverpb_StatusRequest__Output } from '../etcdserverpb/StatusRequest.js';
import type { StatusResponse as _etcdserverpb_StatusResponse, StatusResponse__Output as _etcdserverpb_StatusResponse__Output } from '../etcdserverpb/StatusResponse.js';

export interface MaintenanceClient extends grpc.Client {
  /**
   * Alarm activates, deactivates, and queries alarms regarding cluster health.
   */
  Alarm(argument: _etcdserverpb_AlarmRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AlarmResponse__Output>): grpc.ClientUnaryCall;
  Alarm(argument: _etcdserverpb_AlarmRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AlarmResponse__Output>): grpc.ClientUnaryCall;
  Alarm(argument: _etcdserverpb_AlarmRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AlarmResponse__Output>): grpc.ClientUnaryCall;
  Alarm(argument: _etcdserverpb_AlarmRequest, callback: grpc.requestCallback<_etcdserverpb_AlarmResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Alarm activates, deactivates, and queries alarms regarding cluster health.
   */
  alarm(argument: _etcdserverpb_AlarmRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AlarmResponse__Output>): grpc.ClientUnaryCall;
  alarm(argument: _etcdserverpb_AlarmRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AlarmResponse__Output>): grpc.ClientUnaryCall;
  alarm(argument: _etcdserverpb_AlarmRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AlarmResponse__Output>): grpc.ClientUnaryCall;
  alarm(argument: _etcdserverpb_AlarmRequest, callback: grpc.requestCallback<_etcdserverpb_AlarmResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Defragment defragments a member's backend database to recover storage space.
   */
  Defragment(argument: _etcdserverpb_DefragmentRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_DefragmentResponse__Output>): grpc.ClientUnaryCall;
  Defragment(argument: _etcdserverpb_DefragmentRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_DefragmentResponse__Output>): grpc.ClientUnaryCall;
  Defragment(argument: _etcdserverpb_DefragmentRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_DefragmentResponse__Output>): grpc.ClientUnaryCall;
  Defragment(argument: _etcdserverpb_DefragmentRequest, callback: grpc.requestCallback<_etcdserverpb_DefragmentResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Defragment defragments a member's backend database to recover storage space.
   */
  defragment(argument: _etcdserverpb_DefragmentRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_DefragmentResponse__Output>): grpc.ClientUnaryCall;
  defragment(argument: _etcdserverpb_DefragmentRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_DefragmentResponse__Output>): grpc.ClientUnaryCall;
  defragment(argument: _etcdserverpb_DefragmentRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_DefragmentResponse__Output>): grpc.ClientUnaryCall;
  defragment(argument: _etcdserverpb_DefragmentRequest, callback: grpc.requestCallback<_etcdserverpb_DefragmentResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Downgrade requests downgrade, cancel downgrade on the cluster version.
   */
  Downgrade(argument: _etcdserverpb_DowngradeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_DowngradeResponse__Output>): grpc.ClientUnaryCall;
  Downgrade(argument: _etcdserverpb_DowngradeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_DowngradeResponse__Output>): grpc.ClientUnaryCall;
  Downgrade(argument: _etcdserverpb_DowngradeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_DowngradeResponse__Output>): grpc.ClientUnaryCall;
  Downgrade(argument: _etcdserverpb_DowngradeRequest, callback: grpc.requestCallback<_etcdserverpb_DowngradeResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Downgrade requests downgrade, cancel downgrade on the cluster version.
   */
  downgrade(argument: _etcdserverpb_DowngradeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_DowngradeResponse__Output>): grpc.ClientUnaryCall;
  downgrade(argument: _etcdserverpb_DowngradeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_DowngradeResponse__Output>): grpc.ClientUnaryCall;
  downgrade(argument: _etcdserverpb_DowngradeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_DowngradeResponse__Output>): grpc.ClientUnaryCall;
  downgrade(argument: _etcdserverpb_DowngradeRequest, callback: grpc.requestCallback<_etcdserverpb_DowngradeResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Hash computes the hash of whole backend keyspace,
   * including key, lease, and other buckets in storage.
   * This is designed for testing ONLY!
   * Do not rely on this in production with ongoing transactions,
   * since Hash operation does not hold MVCC locks.
   * Use "HashKV" API instead for "key" bucket consistency checks.
   */
  Hash(argument: _etcdserverpb_HashRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_HashResponse__Output>): grpc.ClientUnaryCall;
  Hash(argument: _etcdserverpb_HashRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_HashResponse__Output>): grpc.ClientUnaryCall;
  Hash(argument: _etcdserverpb_HashRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_HashResponse__Output>): grpc.ClientUnaryCall;
  Hash(argument: _etcdserverpb_HashRequest, callback: grpc.requestCallback<_etcdserverpb_HashResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Hash computes the hash of whole backend keyspace,
   * including key, lease, and other buckets in storage.
   * This is designed for testing ONLY!
   * Do not rely on this in production with ongoing transactions,
   * since Hash operation does not hold MVCC locks.
   * Use "HashKV" API instead for "key" bucket consistency checks.
   */
  hash(argument: _etcdserverpb_HashRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_HashResponse__Output>): grpc.ClientUnaryCall;
  hash(argument: _etcdserverpb_HashRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_HashResponse__Output>): grpc.ClientUnaryCall;
  hash(argument: _etcdserverpb_HashRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_HashResponse__Output>): grpc.ClientUnaryCall;
  hash(argument: _etcdserverpb_HashRequest, callback: grpc.requestCallback<_etcdserverpb_HashResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * HashKV computes the hash of all MVCC keys up to a given revision.
   * It only iterates "key" bucket in backend storage.
   */
  HashKV(argument: _etcdserverpb_HashKVRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_HashKVResponse__Output>): grpc.ClientUnaryCall;
  HashKV(argument: _etcdserverpb_HashKVRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_HashKVResponse__Output>): grpc.ClientUnaryCall;
  HashKV(argument: _etcdserverpb_HashKVRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_HashKVResponse__Output>): grpc.ClientUnaryCall;
  HashKV(argument: _etcdserverpb_HashKVRequest, callback: grpc.requestCallback<_etcdserverpb_HashKVResponse__Output>): grpc.ClientUnaryCall;
  /**
   * HashKV computes the hash of all MVCC keys up to a given revision.
   * It only iterates "key" bucket in backend storage.
   */
  hashKv(argument: _etcdserverpb_HashKVRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_HashKVResponse__Output>): grpc.ClientUnaryCall;
  hashKv(argument: _etcdserverpb_HashKVRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_HashKVResponse__Output>): grpc.ClientUnaryCall;
  hashKv(argument: _etcdserverpb_HashKVRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_HashKVResponse__Output>): grpc.ClientUnaryCall;
  hashKv(argument: _etcdserverpb_HashKVRequest, callback: grpc.requestCallback<_etcdserverpb_HashKVResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * MoveLeader requests current leader node to transfer its leadership to transferee.
   */
  MoveLeader(argument: _etcdserverpb_MoveLeaderRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_MoveLeaderResponse__Output>): grpc.ClientUnaryCall;
  MoveLeader(argument: _etcdserverpb_MoveLeaderRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_MoveLeaderResponse__Output>): grpc.ClientUnaryCall;
  MoveLeader(argument: _etcdserverpb_MoveLeaderRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_MoveLeaderResponse__Output>): grpc.ClientUnaryCall;
  MoveLeader(argument: _etcdserverpb_MoveLeaderRequest, callback: grpc.requestCallback<_etcdserverpb_MoveLeaderResponse__Output>): grpc.ClientUnaryCall;
  /**
   * MoveLeader requests current leader node to transfer its leadership to transferee.
   */
  moveLeader(argument: _etcdserverpb_MoveLeaderRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_MoveLeaderResponse__Output>): grpc.ClientUnaryCall;
  moveLeader(argument: _etcdserverpb_MoveLeaderRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_MoveLeaderResponse__Output>): grpc.ClientUnaryCall;
  moveLeader(argument: _etcdserverpb_MoveLeaderRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_MoveLeaderResponse__Output>): grpc.ClientUnaryCall;
  moveLeader(argument: _etcdserverpb_MoveLeaderRequest, callback: grpc.requestCallback<_etcdserverpb_MoveLeaderResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Snapshot sends a snapshot of the entire backend from a member over a stream to a client.
   */
  Snapshot(argument: _etcdserverpb_SnapshotRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_etcdserverpb_SnapshotResponse__Output>;
  Snapshot(argument: _etcdserverpb_SnapshotRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_etcdserverpb_SnapshotResponse__Output>;
  /**
   * Snapshot sends a snapshot of the entire backend from a member over a stream to a client.
   */
  snapshot(argument: _etcdserverpb_SnapshotRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_etcdserverpb_SnapshotResponse__Output>;
  snapshot(argument: _etcdserverpb_SnapshotRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_etcdserverpb_SnapshotResponse__Output>;
  
  /**
   * Status gets the status of the member.
   */
  Status(argument: _etcdserverpb_StatusRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_StatusResponse__Output>): grpc.ClientUnaryCall;
  Status(argument: _etcdserverpb_StatusRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_StatusResponse__Output>): grpc.ClientUnaryCall;
  Status(argument: _etcdserverpb_StatusRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_StatusResponse__Output>): grpc.ClientUnaryCall;
  Status(argument: _etcdserverpb_StatusRequest, callback: grpc.requestCallback<_etcdserverpb_StatusResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Status gets the status of the member.
   */
  status(argument: _etcdserverpb_StatusRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_StatusResponse__Output>): grpc.ClientUnaryCall;
  status(argument: _etcdserverpb_StatusRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_StatusResponse__Output>): grpc.ClientUnaryCall;
  status(argument: _etcdserverpb_StatusRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_StatusResponse__Output>): grpc.ClientUnaryCall;
  status(argument: _etcdserverpb_StatusRequest, callback: grpc.requestCallback<_etcdserverpb_StatusResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface MaintenanceHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Alarm activates, deactivates, and queries alarms regarding cluster health.
   */
  Alarm: grpc.handleUnaryCall<_etcdserverpb_AlarmRequest__Output, _etcdserverpb_AlarmResponse>;
  
  /**
   * Defragment defragments a member's backend database to recover storage space.
   */
  Defragment: grpc.handleUnaryCall<_etcdserverpb_DefragmentRequest__Output, _etcdserverpb_DefragmentResponse>;
  
  /**
   * Downgrade requests downgrade, cancel downgrade on the cluster version.
   */
  Downgrade: grpc.handleUnaryCall<_etcdserverpb_DowngradeRequest__Output, _etcdserverpb_DowngradeResponse>;
  
  /**
   * Hash computes the hash of whole backend keyspace,
   * including key, lease, and other buckets in storage.
   * This is designed for testing ONLY!
   * Do not rely on this in production with ongoing transactions,
   * since Hash operation does not hold MVCC locks.
   * Use "HashKV" API instead for "key" bucket consistency checks.
   */
  Hash: grpc.handleUnaryCall<_etcdserverpb_HashRequest__Output, _etcdserverpb_HashResponse>;
  
  /**
   * HashKV computes the hash of all MVCC keys up to a given revision.
   * It only iterates "key" bucket in backend storage.
   */
  HashKV: grpc.handleUnaryCall<_etcdserverpb_HashKVRequest__Output, _etcdserverpb_HashKVResponse>;
  
  /**
   * MoveLeader requests current leader node to transfer its leadership to transferee.
   */
  MoveLeader: grpc.handleUnaryCall<_etcdserverpb_MoveLeaderRequest__Output, _etcdserverpb_MoveLeaderResponse>;
  
  /**
   * Snapshot sends a snapshot of the entire backend from a member over a stream to a client.
   */
  Snapshot: grpc.handleServerStreamingCall<_etcdserverpb_SnapshotRequest__Output, _etcdserverpb_SnapshotResponse>;
  
  /**
   * Status gets the status of the member.
   */
  Status: grpc.handleUnaryCall<_etcdserverpb_StatusRequest__Output, _etcdserverpb_StatusResponse>;
  
}

export interface MaintenanceDefinition extends grpc.ServiceDefinition {
  Alarm: MethodDefinition<_etcdserverpb_AlarmRequest, _etcdserverpb_AlarmResponse, _etcdserverpb_AlarmRequest__Output, _etcdserverpb_AlarmResponse__Output>
  Defragment: MethodDefinition<_etcdserverpb_DefragmentRequest, _etcdserverpb_DefragmentResponse, _etcdserverpb_DefragmentRequest__Output, _etcdserverpb_DefragmentResponse__Output>
  Downgrade: MethodDefinition<_etcdserverpb_DowngradeRequest, _etcdserverpb_DowngradeResponse, _etcdserverpb_DowngradeRequest__Output, _etcdserverpb_DowngradeResponse__Output>
  Hash: MethodDefinition<_etcdserverpb_HashRequest, _etcdserverpb_HashResponse, _etcdserverpb_HashRequest__Output, _etcdserverpb_HashResponse__Output>
  HashKV: MethodDefinition<_etcdserverpb_HashKVRequest, _etcdserverpb_HashKVResponse, _etcdserverpb_HashKVRequest__Output, _etcdserverpb_HashKVResponse__Output>
  MoveLeader: MethodDefinition<_etcdserverpb_MoveLeaderRequest, _etcdserverpb_MoveLeaderResponse, _etcdserverpb_MoveLeaderRequest__Output, _etcdserverpb_MoveLeaderResponse__Output>
  Snapshot: MethodDefinition<_etcdserverpb_SnapshotRequest, _etcdserverpb_SnapshotResponse, _etcdserverpb_SnapshotRequest__Output, _etcdserverpb_SnapshotResponse__Output>
  Status: MethodDefinition<_etcdserverpb_StatusRequest, _etcdserverpb_StatusResponse, _etcdserverpb_StatusRequest__Output, _etcdserverpb_StatusResponse__Output>
}
