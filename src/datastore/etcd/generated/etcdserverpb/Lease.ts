// Original file: src/datastore/etcd/proto/rpc.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { LeaseGrantRequest as _etcdserverpb_LeaseGrantRequest, LeaseGrantRequest__Output as _etcdserverpb_LeaseGrantRequest__Output } from '../etcdserverpb/LeaseGrantRequest.js';
import type { LeaseGrantResponse as _etcdserverpb_LeaseGrantResponse, LeaseGrantResponse__Output as _etcdserverpb_LeaseGrantResponse__Output } from '../etcdserverpb/LeaseGrantResponse.js';
import type { LeaseKeepAliveRequest as _etcdserverpb_LeaseKeepAliveRequest, LeaseKeepAliveRequest__Output as _etcdserverpb_LeaseKeepAliveRequest__Output } from '../etcdserverpb/LeaseKeepAliveRequest.js';
import type { LeaseKeepAliveResponse as _etcdserverpb_LeaseKeepAliveResponse, LeaseKeepAliveResponse__Output as _etcdserverpb_LeaseKeepAliveResponse__Output } from '../etcdserverpb/LeaseKeepAliveResponse.js';
import type { LeaseLeasesRequest as _etcdserverpb_LeaseLeasesRequest, LeaseLeasesRequest__Output as _etcdserverpb_LeaseLeasesRequest__Output } from '../etcdserverpb/LeaseLeasesRequest.js';
import type { LeaseLeasesResponse as _etcdserverpb_LeaseLeasesResponse, LeaseLeasesResponse__Output as _etcdserverpb_LeaseLeasesResponse__Output } from '../etcdserverpb/LeaseLeasesResponse.js';
import type { LeaseRevokeRequest as _etcdserverpb_LeaseRevokeRequest, LeaseRevokeRequest__Output as _etcdserverpb_LeaseRevokeRequest__Output } from '../etcdserverpb/LeaseRevokeRequest.js';
import type { LeaseRevokeResponse as _etcdserverpb_LeaseRevokeResponse, LeaseRevokeResponse__Output as _etcdserverpb_LeaseRevokeResponse__Output } from '../etcdserverpb/LeaseRevokeResponse.js';
import type { LeaseTimeToLiveRequest as _etcdserverpb_LeaseTimeToLiveRequest, LeaseTimeToLiveRequest__Output as _etcdserverpb_LeaseTimeToLiveRequest__Output } from '../etcdserverpb/LeaseTimeToLiveRequest.js';
import type { LeaseTimeToLiveResponse as _etcdserverpb_LeaseTimeToLiveResponse, LeaseTimeToLiveResponse__Output as _etcdserverpb_LeaseTimeToLiveResponse__Output } from '../etcdserverpb/LeaseTimeToLiveResponse.js';

export interface LeaseClient extends grpc.Client {
  /**
   * LeaseGrant creates a lease which expires if the server does not receive a keepAlive
   * within a given time to live period. All keys attached to the lease will be expired and
   * deleted if the lease expires. Each expired key generates a delete event in the event history.
   */
  LeaseGrant(argument: _etcdserverpb_LeaseGrantRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_LeaseGrantResponse__Output>): grpc.ClientUnaryCall;
  LeaseGrant(argument: _etcdserverpb_LeaseGrantRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_LeaseGrantResponse__Output>): grpc.ClientUnaryCall;
  LeaseGrant(argument: _etcdserverpb_LeaseGrantRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_LeaseGrantResponse__Output>): grpc.ClientUnaryCall;
  LeaseGrant(argument: _etcdserverpb_LeaseGrantRequest, callback: grpc.requestCallback<_etcdserverpb_LeaseGrantResponse__Output>): grpc.ClientUnaryCall;
  /**
   * LeaseGrant creates a lease which expires if the server does not receive a keepAlive
   * within a given time to live period. All keys attached to the lease will be expired and
   * deleted if the lease expires. Each expired key generates a delete event in the event history.
   */
  leaseGrant(argument: _etcdserverpb_LeaseGrantRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_LeaseGrantResponse__Output>): grpc.ClientUnaryCall;
  leaseGrant(argument: _etcdserverpb_LeaseGrantRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_LeaseGrantResponse__Output>): grpc.ClientUnaryCall;
  leaseGrant(argument: _etcdserverpb_LeaseGrantRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_LeaseGrantResponse__Output>): grpc.ClientUnaryCall;
  leaseGrant(argument: _etcdserverpb_LeaseGrantRequest, callback: grpc.requestCallback<_etcdserverpb_LeaseGrantResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * LeaseKeepAlive keeps the lease alive by streaming keep alive requests from the client
   * to the server and streaming keep alive responses from the server to the client.
   */
  LeaseKeepAlive(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_etcdserverpb_LeaseKeepAliveRequest, _etcdserverpb_LeaseKeepAliveResponse__Output>;
  LeaseKeepAlive(options?: grpc.CallOptions): grpc.ClientDuplexStream<_etcdserverpb_LeaseKeepAliveRequest, _etcdserverpb_LeaseKeepAliveResponse__Output>;
  /**
   * LeaseKeepAlive keeps the lease alive by streaming keep alive requests from the client
   * to the server and streaming keep alive responses from the server to the client.
   */
  leaseKeepAlive(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_etcdserverpb_LeaseKeepAliveRequest, _etcdserverpb_LeaseKeepAliveResponse__Output>;
  leaseKeepAlive(options?: grpc.CallOptions): grpc.ClientDuplexStream<_etcdserverpb_LeaseKeepAliveRequest, _etcdserverpb_LeaseKeepAliveResponse__Output>;
  
  /**
   * LeaseLeases lists all existing leases.
   */
  LeaseLeases(argument: _etcdserverpb_LeaseLeasesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_LeaseLeasesResponse__Output>): grpc.ClientUnaryCall;
  LeaseLeases(argument: _etcdserverpb_LeaseLeasesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_LeaseLeasesResponse__Output>): grpc.ClientUnaryCall;
  LeaseLeases(argument: _etcdserverpb_LeaseLeasesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_LeaseLeasesResponse__Output>): grpc.ClientUnaryCall;
  LeaseLeases(argument: _etcdserverpb_LeaseLeasesRequest, callback: grpc.requestCallback<_etcdserverpb_LeaseLeasesResponse__Output>): grpc.ClientUnaryCall;
  /**
   * LeaseLeases lists all existing leases.
   */
  leaseLeases(argument: _etcdserverpb_LeaseLeasesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_LeaseLeasesResponse__Output>): grpc.ClientUnaryCall;
  leaseLeases(argument: _etcdserverpb_LeaseLeasesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_LeaseLeasesResponse__Output>): grpc.ClientUnaryCall;
  leaseLeases(argument: _etcdserverpb_LeaseLeasesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_LeaseLeasesResponse__Output>): grpc.ClientUnaryCall;
  leaseLeases(argument: _etcdserverpb_LeaseLeasesRequest, callback: grpc.requestCallback<_etcdserverpb_LeaseLeasesResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * LeaseRevoke revokes a lease. All keys attached to the lease will expire and be deleted.
   */
  LeaseRevoke(argument: _etcdserverpb_LeaseRevokeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_LeaseRevokeResponse__Output>): grpc.ClientUnaryCall;
  LeaseRevoke(argument: _etcdserverpb_LeaseRevokeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_LeaseRevokeResponse__Output>): grpc.ClientUnaryCall;
  LeaseRevoke(argument: _etcdserverpb_LeaseRevokeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_LeaseRevokeResponse__Output>): grpc.ClientUnaryCall;
  LeaseRevoke(argument: _etcdserverpb_LeaseRevokeRequest, callback: grpc.requestCallback<_etcdserverpb_LeaseRevokeResponse__Output>): grpc.ClientUnaryCall;
  /**
   * LeaseRevoke revokes a lease. All keys attached to the lease will expire and be deleted.
   */
  leaseRevoke(argument: _etcdserverpb_LeaseRevokeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_LeaseRevokeResponse__Output>): grpc.ClientUnaryCall;
  leaseRevoke(argument: _etcdserverpb_LeaseRevokeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_LeaseRevokeResponse__Output>): grpc.ClientUnaryCall;
  leaseRevoke(argument: _etcdserverpb_LeaseRevokeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_LeaseRevokeResponse__Output>): grpc.ClientUnaryCall;
  leaseRevoke(argument: _etcdserverpb_LeaseRevokeRequest, callback: grpc.requestCallback<_etcdserverpb_LeaseRevokeResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * LeaseTimeToLive retrieves lease information.
   */
  LeaseTimeToLive(argument: _etcdserverpb_LeaseTimeToLiveRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_LeaseTimeToLiveResponse__Output>): grpc.ClientUnaryCall;
  LeaseTimeToLive(argument: _etcdserverpb_LeaseTimeToLiveRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_LeaseTimeToLiveResponse__Output>): grpc.ClientUnaryCall;
  LeaseTimeToLive(argument: _etcdserverpb_LeaseTimeToLiveRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_LeaseTimeToLiveResponse__Output>): grpc.ClientUnaryCall;
  LeaseTimeToLive(argument: _etcdserverpb_LeaseTimeToLiveRequest, callback: grpc.requestCallback<_etcdserverpb_LeaseTimeToLiveResponse__Output>): grpc.ClientUnaryCall;
  /**
   * LeaseTimeToLive retrieves lease information.
   */
  leaseTimeToLive(argument: _etcdserverpb_LeaseTimeToLiveRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_LeaseTimeToLiveResponse__Output>): grpc.ClientUnaryCall;
  leaseTimeToLive(argument: _etcdserverpb_LeaseTimeToLiveRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_LeaseTimeToLiveResponse__Output>): grpc.ClientUnaryCall;
  leaseTimeToLive(argument: _etcdserverpb_LeaseTimeToLiveRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_LeaseTimeToLiveResponse__Output>): grpc.ClientUnaryCall;
  leaseTimeToLive(argument: _etcdserverpb_LeaseTimeToLiveRequest, callback: grpc.requestCallback<_etcdserverpb_LeaseTimeToLiveResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface LeaseHandlers extends grpc.UntypedServiceImplementation {
  /**
   * LeaseGrant creates a lease which expires if the server does not receive a keepAlive
   * within a given time to live period. All keys attached to the lease will be expired and
   * deleted if the lease expires. Each expired key generates a delete event in the event history.
   */
  LeaseGrant: grpc.handleUnaryCall<_etcdserverpb_LeaseGrantRequest__Output, _etcdserverpb_LeaseGrantResponse>;
  
  /**
   * LeaseKeepAlive keeps the lease alive by streaming keep alive requests from the client
   * to the server and streaming keep alive responses from the server to the client.
   */
  LeaseKeepAlive: grpc.handleBidiStreamingCall<_etcdserverpb_LeaseKeepAliveRequest__Output, _etcdserverpb_LeaseKeepAliveResponse>;
  
  /**
   * LeaseLeases lists all existing leases.
   */
  LeaseLeases: grpc.handleUnaryCall<_etcdserverpb_LeaseLeasesRequest__Output, _etcdserverpb_LeaseLeasesResponse>;
  
  /**
   * LeaseRevoke revokes a lease. All keys attached to the lease will expire and be deleted.
   */
  LeaseRevoke: grpc.handleUnaryCall<_etcdserverpb_LeaseRevokeRequest__Output, _etcdserverpb_LeaseRevokeResponse>;
  
  /**
   * LeaseTimeToLive retrieves lease information.
   */
  LeaseTimeToLive: grpc.handleUnaryCall<_etcdserverpb_LeaseTimeToLiveRequest__Output, _etcdserverpb_LeaseTimeToLiveResponse>;
  
}

export interface LeaseDefinition extends grpc.ServiceDefinition {
  LeaseGrant: MethodDefinition<_etcdserverpb_LeaseGrantRequest, _etcdserverpb_LeaseGrantResponse, _etcdserverpb_LeaseGrantRequest__Output, _etcdserverpb_LeaseGrantResponse__Output>
  LeaseKeepAlive: MethodDefinition<_etcdserverpb_LeaseKeepAliveRequest, _etcdserverpb_LeaseKeepAliveResponse, _etcdserverpb_LeaseKeepAliveRequest__Output, _etcdserverpb_LeaseKeepAliveResponse__Output>
  LeaseLeases: MethodDefinition<_etcdserverpb_LeaseLeasesRequest, _etcdserverpb_LeaseLeasesResponse, _etcdserverpb_LeaseLeasesRequest__Output, _etcdserverpb_LeaseLeasesResponse__Output>
  LeaseRevoke: MethodDefinition<_etcdserverpb_LeaseRevokeRequest, _etcdserverpb_LeaseRevokeResponse, _etcdserverpb_LeaseRevokeRequest__Output, _etcdserverpb_LeaseRevokeResponse__Output>
  LeaseTimeToLive: MethodDefinition<_etcdserverpb_LeaseTimeToLiveRequest, _etcdserverpb_LeaseTimeToLiveResponse, _etcdserverpb_LeaseTimeToLiveRequest__Output, _etcdserverpb_LeaseTimeToLiveResponse__Output>
}
