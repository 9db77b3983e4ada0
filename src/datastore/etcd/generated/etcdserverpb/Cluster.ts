// Original file: src/datastore/etcd/proto/rpc.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { MemberAddRequest as _etcdserverpb_MemberAddRequest, MemberAddRequest__Output as _etcdserverpb_MemberAddRequest__Output } from '../etcdserverpb/MemberAddRequest.js';
import type { MemberAddResponse as _etcdserverpb_MemberAddResponse, MemberAddResponse__Output as _etcdserverpb_MemberAddResponse__Output } from '../etcdserverpb/MemberAddResponse.js';
import type { MemberListRequest as _etcdserverpb_MemberListRequest, MemberListRequest__Output as _etcdserverpb_MemberListRequest__Output } from '../etcdserverpb/MemberListRequest.js';
import type { MemberListResponse as _etcdserverpb_MemberListResponse, MemberListResponse__Output as _etcdserverpb_MemberListResponse__Output } from '../etcdserverpb/MemberListResponse.js';
import type { MemberPromoteRequest as _etcdserverpb_MemberPromoteRequest, MemberPromoteRequest__Output as _etcdserverpb_MemberPromoteRequest__Output } from '../etcdserverpb/MemberPromoteRequest.js';
import type { MemberPromoteResponse as _etcdserverpb_MemberPromoteResponse, MemberPromoteResponse__Output as _etcdserverpb_MemberPromoteResponse__Output } from '../etcdserverpb/MemberPromoteResponse.js';
import type { MemberRemoveRequest as _etcdserverpb_MemberRemoveRequest, MemberRemoveRequest__Output as _etcdserverpb_MemberRemoveRequest__Output } from '../etcdserverpb/MemberRemoveRequest.js';
import type { MemberRemoveResponse as _etcdserverpb_MemberRemoveResponse, MemberRemoveResponse__Output as _etcdserverpb_MemberRemoveResponse__Output } from '../etcdserverpb/MemberRemoveResponse.js';
import type { MemberUpdateRequest as _etcdserverpb_MemberUpdateRequest, MemberUpdateRequest__Output as _etcdserverpb_MemberUpdateRequest__Output } from '../etcdserverpb/MemberUpdateRequest.js';
import type { MemberUpdateResponse as _etcdserverpb_MemberUpdateResponse, MemberUpdateResponse__Output as _etcdserverpb_MemberUpdateResponse__Output } from '../etcdserverpb/MemberUpdateResponse.js';

export interface ClusterClient extends grpc.Client {
  /**
   * MemberAdd adds a member into the cluster.
   */
  MemberAdd(argument: _etcdserverpb_MemberAddRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_MemberAddResponse__Output>): grpc.ClientUnaryCall;
  MemberAdd(argument: _etcdserverpb_MemberAddRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_MemberAddResponse__Output>): grpc.ClientUnaryCall;
  MemberAdd(argument: _etcdserverpb_MemberAddRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_MemberAddResponse__Output>): grpc.ClientUnaryCall;
  MemberAdd(argument: _etcdserverpb_MemberAddRequest, callback: grpc.requestCallback<_etcdserverpb_MemberAddResponse__Output>): grpc.ClientUnaryCall;
  /**
   * MemberAdd adds a member into the cluster.
   */
  memberAdd(argument: _etcdserverpb_MemberAddRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_MemberAddResponse__Output>): grpc.ClientUnaryCall;
  memberAdd(argument: _etcdserverpb_MemberAddRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_MemberAddResponse__Output>): grpc.ClientUnaryCall;
  memberAdd(argument: _etcdserverpb_MemberAddRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_MemberAddResponse__Output>): grpc.ClientUnaryCall;
  memberAdd(argument: _etcdserverpb_MemberAddRequest, callback: grpc.requestCallback<_etcdserverpb_MemberAddResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * MemberList lists all the members in the cluster.
   */
  MemberList(argument: _etcdserverpb_MemberListRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_MemberListResponse__Output>): grpc.ClientUnaryCall;
  MemberList(argument: _etcdserverpb_MemberListRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_MemberListResponse__Output>): grpc.ClientUnaryCall;
  MemberList(argument: _etcdserverpb_MemberListRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_MemberListResponse__Output>): grpc.ClientUnaryCall;
  MemberList(argument: _etcdserverpb_MemberListRequest, callback: grpc.requestCallback<_etcdserverpb_MemberListResponse__Output>): grpc.ClientUnaryCall;
  /**
   * MemberList lists all the members in the cluster.
   */
  memberList(argument: _etcdserverpb_MemberListRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_MemberListResponse__Output>): grpc.ClientUnaryCall;
  memberList(argument: _etcdserverpb_MemberListRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_MemberListResponse__Output>): grpc.ClientUnaryCall;
  memberList(argument: _etcdserverpb_MemberListRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_MemberListResponse__Output>): grpc.ClientUnaryCall;
  memberList(argument: _etcdserverpb_MemberListRequest, callback: grpc.requestCallback<_etcdserverpb_MemberListResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * MemberPromote promotes a member from raft learner (non-voting) to raft voting member.
   */
  MemberPromote(argument: _etcdserverpb_MemberPromoteRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_MemberPromoteResponse__Output>): grpc.ClientUnaryCall;
  MemberPromote(argument: _etcdserverpb_MemberPromoteRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_MemberPromoteResponse__Output>): grpc.ClientUnaryCall;
  MemberPromote(argument: _etcdserverpb_MemberPromoteRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_MemberPromoteResponse__Output>): grpc.ClientUnaryCall;
  MemberPromote(argument: _etcdserverpb_MemberPromoteRequest, callback: grpc.requestCallback<_etcdserverpb_MemberPromoteResponse__Output>): grpc.ClientUnaryCall;
  /**
   * MemberPromote promotes a member from raft learner (non-voting) to raft voting member.
   */
  memberPromote(argument: _etcdserverpb_MemberPromoteRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_MemberPromoteResponse__Output>): grpc.ClientUnaryCall;
  memberPromote(argument: _etcdserverpb_MemberPromoteRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_MemberPromoteResponse__Output>): grpc.ClientUnaryCall;
  memberPromote(argument: _etcdserverpb_MemberPromoteRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_MemberPromoteResponse__Output>): grpc.ClientUnaryCall;
  memberPromote(argument: _etcdserverpb_MemberPromoteRequest, callback: grpc.requestCallback<_etcdserverpb_MemberPromoteResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * MemberRemove removes an existing member from the cluster.
   */
  MemberRemove(argument: _etcdserverpb_MemberRemoveRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_MemberRemoveResponse__Output>): grpc.ClientUnaryCall;
  MemberRemove(argument: _etcdserverpb_MemberRemoveRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_MemberRemoveResponse__Output>): grpc.ClientUnaryCall;
  MemberRemove(argument: _etcdserverpb_MemberRemoveRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_MemberRemoveResponse__Output>): grpc.ClientUnaryCall;
  MemberRemove(argument: _etcdserverpb_MemberRemoveRequest, callback: grpc.requestCallback<_etcdserverpb_MemberRemoveResponse__Output>): grpc.ClientUnaryCall;
  /**
   * MemberRemove removes an existing member from the cluster.
   */
  memberRemove(argument: _etcdserverpb_MemberRemoveRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_MemberRemoveResponse__Output>): grpc.ClientUnaryCall;
  memberRemove(argument: _etcdserverpb_MemberRemoveRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_MemberRemoveResponse__Output>): grpc.ClientUnaryCall;
  memberRemove(argument: _etcdserverpb_MemberRemoveRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_MemberRemoveResponse__Output>): grpc.ClientUnaryCall;
  memberRemove(argument: _etcdserverpb_MemberRemoveRequest, callback: grpc.requestCallback<_etcdserverpb_MemberRemoveResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * MemberUpdate updates the member configuration.
   */
  MemberUpdate(argument: _etcdserverpb_MemberUpdateRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_MemberUpdateResponse__Output>): grpc.ClientUnaryCall;
  MemberUpdate(argument: _etcdserverpb_MemberUpdateRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_MemberUpdateResponse__Output>): grpc.ClientUnaryCall;
  MemberUpdate(argument: _etcdserverpb_MemberUpdateRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_MemberUpdateResponse__Output>): grpc.ClientUnaryCall;
  MemberUpdate(argument: _etcdserverpb_MemberUpdateRequest, callback: grpc.requestCallback<_etcdserverpb_MemberUpdateResponse__Output>): grpc.ClientUnaryCall;
  /**
   * MemberUpdate updates the member configuration.
   */
  memberUpdate(argument: _etcdserverpb_MemberUpdateRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_MemberUpdateResponse__Output>): grpc.ClientUnaryCall;
  memberUpdate(argument: _etcdserverpb_MemberUpdateRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_MemberUpdateResponse__Output>): grpc.ClientUnaryCall;
  memberUpdate(argument: _etcdserverpb_MemberUpdateRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_MemberUpdateResponse__Output>): grpc.ClientUnaryCall;
  memberUpdate(argument: _etcdserverpb_MemberUpdateRequest, callback: grpc.requestCallback<_etcdserverpb_MemberUpdateResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface ClusterHandlers extends grpc.UntypedServiceImplementation {
  /**
   * MemberAdd adds a member into the cluster.
   */
  MemberAdd: grpc.handleUnaryCall<_etcdserverpb_MemberAddRequest__Output, _etcdserverpb_MemberAddResponse>;
  
  /**
   * MemberList lists all the members in the cluster.
   */
  MemberList: grpc.handleUnaryCall<_etcdserverpb_MemberListRequest__Output, _etcdserverpb_MemberListResponse>;
  
  /**
   * MemberPromote promotes a member from raft learner (non-voting) to raft voting member.
   */
  MemberPromote: grpc.handleUnaryCall<_etcdserverpb_MemberPromoteRequest__Output, _etcdserverpb_MemberPromoteResponse>;
  
  /**
   * MemberRemove removes an existing member from the cluster.
   */
  MemberRemove: grpc.handleUnaryCall<_etcdserverpb_MemberRemoveRequest__Output, _etcdserverpb_MemberRemoveResponse>;
  
  /**
   * MemberUpdate updates the member configuration.
   */
  MemberUpdate: grpc.handleUnaryCall<_etcdserverpb_MemberUpdateRequest__Output, _etcdserverpb_MemberUpdateResponse>;
  
}

export interface ClusterDefinition extends grpc.ServiceDefinition {
  MemberAdd: MethodDefinition<_etcdserverpb_MemberAddRequest, _etcdserverpb_MemberAddResponse, _etcdserverpb_MemberAddRequest__Output, _etcdserverpb_MemberAddResponse__Output>
  MemberList: MethodDefinition<_etcdserverpb_MemberListRequest, _etcdserverpb_MemberListResponse, _etcdserverpb_MemberListRequest__Output, _etcdserverpb_MemberListResponse__Output>
  MemberPromote: MethodDefinition<_etcdserverpb_MemberPromoteRequest, _etcdserverpb_MemberPromoteResponse, _etcdserverpb_MemberPromoteRequest__Output, _etcdserverpb_MemberPromoteResponse__Output>
  MemberRemove: MethodDefinition<_etcdserverpb_MemberRemoveRequest, _etcdserverpb_MemberRemoveResponse, _etcdserverpb_MemberRemoveRequest__Output, _etcdserverpb_MemberRemoveResponse__Output>
  MemberUpdate: MethodDefinition<_etcdserverpb_MemberUpdateRequest, _etcdserverpb_MemberUpdateResponse, _etcdserverpb_MemberUpdateRequest__Output, _etcdserverpb_MemberUpdateResponse__Output>
}
