// Original file: src/datastore/etcd/proto/rpc.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AuthDisableRequest as _etcdserverpb_AuthDisableRequest, AuthDisableRequest__Output as _etcdserverpb_AuthDisableRequest__Output } from '../etcdserverpb/AuthDisableRequest.js';
import type { AuthDisableResponse as _etcdserverpb_AuthDisableResponse, AuthDisableResponse__Output as _etcdserverpb_AuthDisableResponse__Output } from '../etcdserverpb/AuthDisableResponse.js';
import type { AuthEnableRequest as _etcdserverpb_AuthEnableRequest, AuthEnableRequest__Output as _etcdserverpb_AuthEnableRequest__Output } from '../etcdserverpb/AuthEnableRequest.js';
import type { AuthEnableResponse as _etcdserverpb_AuthEnableResponse, AuthEnableResponse__Output as _etcdserverpb_AuthEnableResponse__Output } from '../etcdserverpb/AuthEnableResponse.js';
import type { AuthRoleAddRequest as _etcdserverpb_AuthRoleAddRequest, AuthRoleAddRequest__Output as _etcdserverpb_AuthRoleAddRequest__Output } from '../etcdserverpb/AuthRoleAddRequest.js';
import type { AuthRoleAddResponse as _etcdserverpb_AuthRoleAddResponse, AuthRoleAddResponse__Output as _etcdserverpb_AuthRoleAddResponse__Output } from '../etcdserverpb/AuthRoleAddResponse.js';
import type { AuthRoleDeleteRequest as _etcdserverpb_AuthRoleDeleteRequest, AuthRoleDeleteRequest__Output as _etcdserverpb_AuthRoleDeleteRequest__Output } from '../etcdserverpb/AuthRoleDeleteRequest.js';
import type { AuthRoleDeleteResponse as _etcdserverpb_AuthRoleDeleteResponse, AuthRoleDeleteResponse__Output as _etcdserverpb_AuthRoleDeleteResponse__Output } from '../etcdserverpb/AuthRoleDeleteResponse.js';
import type { AuthRoleGetRequest as _etcdserverpb_AuthRoleGetRequest, AuthRoleGetRequest__Output as _etcdserverpb_AuthRoleGetRequest__Output } from '../etcdserverpb/AuthRoleGetRequest.js';
import type { AuthRoleGetResponse as _etcdserverpb_AuthRoleGetResponse, AuthRoleGetResponse__Output as _etcdserverpb_AuthRoleGetResponse__Output } from '../etcdserverpb/AuthRoleGetResponse.js';
import type { AuthRoleGrantPermissionRequest as _etcdserverpb_AuthRoleGrantPermissionRequest, AuthRoleGrantPermissionRequest__Output as _etcdserverpb_AuthRoleGrantPermissionRequest__Output } from '../etcdserverpb/AuthRoleGrantPermissionRequest.js';
import type { AuthRoleGrantPermissionResponse as _etcdserverpb_AuthRoleGrantPermissionResponse, AuthRoleGrantPermissionResponse__Output as _etcdserverpb_AuthRoleGrantPermissionResponse__Output } from '../etcdserverpb/AuthRoleGrantPermissionResponse.js';
import type { AuthRoleListRequest as _etcdserverpb_AuthRoleListRequest, AuthRoleListRequest__Output as _etcdserverpb_AuthRoleListRequest__Output } from '../etcdserverpb/AuthRoleListRequest.js';
import type { AuthRoleListResponse as _etcdserverpb_AuthRoleListResponse, AuthRoleListResponse__Output as _etcdserverpb_AuthRoleListResponse__Output } from '../etcdserverpb/AuthRoleListResponse.js';
import type { AuthRoleRevokePermissionRequest as _etcdserverpb_AuthRoleRevokePermissionRequest, AuthRoleRevokePermissionRequest__Output as _etcdserverpb_AuthRoleRevokePermissionRequest__Output } from '../etcdserverpb/AuthRoleRevokePermissionRequest.js';
import type { AuthRoleRevokePermissionResponse as _etcdserverpb_AuthRoleRevokePermissionResponse, AuthRoleRevokePermissionResponse__Output as _etcdserverpb_AuthRoleRevokePermissionResponse__Output } from '../etcdserverpb/AuthRoleRevokePermissionResponse.js';
import type { AuthStatusRequest as _etcdserverpb_AuthStatusRequest, AuthStatusRequest__Output as _etcdserverpb_AuthStatusRequest__Output } from '../etcdserverpb/AuthStatusRequest.js';
import type { AuthStatusResponse as _etcdserverpb_AuthStatusResponse, AuthStatusResponse__Output as _etcdserverpb_AuthStatusResponse__Output } from '../etcdserverpb/AuthStatusResponse.js';
import type { AuthUserAddRequest as _etcdserverpb_AuthUserAddRequest, AuthUserAddRequest__Output as _etcdserverpb_AuthUserAddRequest__Output } from '../etcdserverpb/AuthUserAddRequest.js';
import type { AuthUserAddResponse as _etcdserverpb_AuthUserAddResponse, AuthUserAddResponse__Output as _etcdserverpb_AuthUserAddResponse__Output } from '../etcdserverpb/AuthUserAddResponse.js';
import type { AuthUserChangePasswordRequest as _etcdserverpb_AuthUserChangePasswordRequest, AuthUserChangePasswordRequest__Output as _etcdserverpb_AuthUserChangePasswordRequest__Output } from '../etcdserverpb/AuthUserChangePasswordRequest.js';
import type { AuthUserChangePasswordResponse as _etcdserverpb_AuthUserChangePasswordResponse, AuthUserChangePasswordResponse__Output as _etcdserverpb_AuthUserChangePasswordResponse__Output } from '../etcdserverpb/AuthUserChangePasswordResponse.js';
import type { AuthUserDeleteRequest as _etcdserverpb_AuthUserDeleteRequest, AuthUserDeleteRequest__Output as _etcdserverpb_AuthUserDeleteRequest__Output } from '../etcdserverpb/AuthUserDeleteRequest.js';
import type { AuthUserDeleteResponse as _etcdserverpb_AuthUserDeleteResponse, AuthUserDeleteResponse__Output as _etcdserverpb_AuthUserDeleteResponse__Output } from '../etcdserverpb/AuthUserDeleteResponse.js';
import type { AuthUserGetRequest as _etcdserverpb_AuthUserGetRequest, AuthUserGetRequest__Output as _etcdserverpb_AuthUserGetRequest__Output } from '../etcdserverpb/AuthUserGetRequest.js';
import type { AuthUserGetResponse as _etcdserverpb_AuthUserGetResponse, AuthUserGetResponse__Output as _etcdserverpb_AuthUserGetResponse__Output } from '../etcdserverpb/AuthUserGetResponse.js';
import type { AuthUserGrantRoleRequest as _etcdserverpb_AuthUserGrantRoleRequest, AuthUserGrantRoleRequest__Output as _etcdserverpb_AuthUserGrantRoleRequest__Output } from '../etcdserverpb/AuthUserGrantRoleRequest.js';
import type { AuthUserGrantRoleResponse as _etcdserverpb_AuthUserGrantRoleResponse, AuthUserGrantRoleResponse__Output as _etcdserverpb_AuthUserGrantRoleResponse__Output } from '../etcdserverpb/AuthUserGrantRoleResponse.js';
import type { AuthUserListRequest as _etcdserverpb_AuthUserListRequest, AuthUserListRequest__Output as _etcdserverpb_AuthUserListRequest__Output } from '../etcdserverpb/AuthUserListRequest.js';
import type { AuthUserListResponse as _etcdserverpb_AuthUserListResponse, AuthUserListResponse__Output as _etcdserverpb_AuthUserListResponse__Output } from '../etcdserverpb/AuthUserListResponse.js';
import type { AuthUserRevokeRoleRequest as _etcdserverpb_AuthUserRevokeRoleRequest, AuthUserRevokeRoleRequest__Output as _etcdserverpb_AuthUserRevokeRoleRequest__Output } from '../etcdserverpb/AuthUserRevokeRoleRequest.js';
import type { AuthUserRevokeRoleResponse as _etcdserverpb_AuthUserRevokeRoleResponse, AuthUserRevokeRoleResponse__Output as _etcdserverpb_AuthUserRevokeRoleResponse__Output } from '../etcdserverpb/AuthUserRevokeRoleResponse.js';
import type { AuthenticateRequest as _etcdserverpb_AuthenticateRequest, AuthenticateRequest__Output as _etcdserverpb_AuthenticateRequest__Output } from '../etcdserverpb/AuthenticateRequest.js';
import type { AuthenticateResponse as _etcdserverpb_AuthenticateResponse, AuthenticateResponse__Output as _etcdserverpb_AuthenticateResponse__Output } from '../etcdserverpb/AuthenticateResponse.js';

export interface AuthClient extends grpc.Client {
  /**
   * AuthDisable disables authentication.
   */
  AuthDisable(argument: _etcdserverpb_AuthDisableRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthDisableResponse__Output>): grpc.ClientUnaryCall;
  AuthDisable(argument: _etcdserverpb_AuthDisableRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthDisableResponse__Output>): grpc.ClientUnaryCall;
  AuthDisable(argument: _etcdserverpb_AuthDisableRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthDisableResponse__Output>): grpc.ClientUnaryCall;
  AuthDisable(argument: _etcdserverpb_AuthDisableRequest, callback: grpc.requestCallback<_etcdserverpb_AuthDisableResponse__Output>): grpc.ClientUnaryCall;
  /**
   * AuthDisable disables authentication.
   */
  authDisable(argument: _etcdserverpb_AuthDisableRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthDisableResponse__Output>): grpc.ClientUnaryCall;
  authDisable(argument: _etcdserverpb_AuthDisableRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthDisableResponse__Output>): grpc.ClientUnaryCall;
  authDisable(argument: _etcdserverpb_AuthDisableRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthDisableResponse__Output>): grpc.ClientUnaryCall;
  authDisable(argument: _etcdserverpb_AuthDisableRequest, callback: grpc.requestCallback<_etcdserverpb_AuthDisableResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * AuthEnable enables authentication.
   */
  AuthEnable(argument: _etcdserverpb_AuthEnableRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthEnableResponse__Output>): grpc.ClientUnaryCall;
  AuthEnable(argument: _etcdserverpb_AuthEnableRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthEnableResponse__Output>): grpc.ClientUnaryCall;
  AuthEnable(argument: _etcdserverpb_AuthEnableRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthEnableResponse__Output>): grpc.ClientUnaryCall;
  AuthEnable(argument: _etcdserverpb_AuthEnableRequest, callback: grpc.requestCallback<_etcdserverpb_AuthEnableResponse__Output>): grpc.ClientUnaryCall;
  /**
   * AuthEnable enables authentication.
   */
  authEnable(argument: _etcdserverpb_AuthEnableRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthEnableResponse__Output>): grpc.ClientUnaryCall;
  authEnable(argument: _etcdserverpb_AuthEnableRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthEnableResponse__Output>): grpc.ClientUnaryCall;
  authEnable(argument: _etcdserverpb_AuthEnableRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthEnableResponse__Output>): grpc.ClientUnaryCall;
  authEnable(argument: _etcdserverpb_AuthEnableRequest, callback: grpc.requestCallback<_etcdserverpb_AuthEnableResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * AuthStatus displays authentication status.
   */
  AuthStatus(argument: _etcdserverpb_AuthStatusRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthStatusResponse__Output>): grpc.ClientUnaryCall;
  AuthStatus(argument: _etcdserverpb_AuthStatusRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthStatusResponse__Output>): grpc.ClientUnaryCall;
  AuthStatus(argument: _etcdserverpb_AuthStatusRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthStatusResponse__Output>): grpc.ClientUnaryCall;
  AuthStatus(argument: _etcdserverpb_AuthStatusRequest, callback: grpc.requestCallback<_etcdserverpb_AuthStatusResponse__Output>): grpc.ClientUnaryCall;
  /**
   * AuthStatus displays authentication status.
   */
  authStatus(argument: _etcdserverpb_AuthStatusRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthStatusResponse__Output>): grpc.ClientUnaryCall;
  authStatus(argument: _etcdserverpb_AuthStatusRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthStatusResponse__Output>): grpc.ClientUnaryCall;
  authStatus(argument: _etcdserverpb_AuthStatusRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthStatusResponse__Output>): grpc.ClientUnaryCall;
  authStatus(argument: _etcdserverpb_AuthStatusRequest, callback: grpc.requestCallback<_etcdserverpb_AuthStatusResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Authenticate processes an authenticate request.
   */
  Authenticate(argument: _etcdserverpb_AuthenticateRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthenticateResponse__Output>): grpc.ClientUnaryCall;
  Authenticate(argument: _etcdserverpb_AuthenticateRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthenticateResponse__Output>): grpc.ClientUnaryCall;
  Authenticate(argument: _etcdserverpb_AuthenticateRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthenticateResponse__Output>): grpc.ClientUnaryCall;
  Authenticate(argument: _etcdserverpb_AuthenticateRequest, callback: grpc.requestCallback<_etcdserverpb_AuthenticateResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Authenticate processes an authenticate request.
   */
  authenticate(argument: _etcdserverpb_AuthenticateRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthenticateResponse__Output>): grpc.ClientUnaryCall;
  authenticate(argument: _etcdserverpb_AuthenticateRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthenticateResponse__Output>): grpc.ClientUnaryCall;
  authenticate(argument: _etcdserverpb_AuthenticateRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthenticateResponse__Output>): grpc.ClientUnaryCall;
  authenticate(argument: _etcdserverpb_AuthenticateRequest, callback: grpc.requestCallback<_etcdserverpb_AuthenticateResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * RoleAdd adds a new role. Role name cannot be empty.
   */
  RoleAdd(argument: _etcdserverpb_AuthRoleAddRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthRoleAddResponse__Output>): grpc.ClientUnaryCall;
  RoleAdd(argument: _etcdserverpb_AuthRoleAddRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthRoleAddResponse__Output>): grpc.ClientUnaryCall;
  RoleAdd(argument: _etcdserverpb_AuthRoleAddRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthRoleAddResponse__Output>): grpc.ClientUnaryCall;
  RoleAdd(argument: _etcdserverpb_AuthRoleAddRequest, callback: grpc.requestCallback<_etcdserverpb_AuthRoleAddResponse__Output>): grpc.ClientUnaryCall;
  /**
   * RoleAdd adds a new role. Role name cannot be empty.
   */
  roleAdd(argument: _etcdserverpb_AuthRoleAddRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthRoleAddResponse__Output>): grpc.ClientUnaryCall;
  roleAdd(argument: _etcdserverpb_AuthRoleAddRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthRoleAddResponse__Output>): grpc.ClientUnaryCall;
  roleAdd(argument: _etcdserverpb_AuthRoleAddRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthRoleAddResponse__Output>): grpc.ClientUnaryCall;
  roleAdd(argument: _etcdserverpb_AuthRoleAddRequest, callback: grpc.requestCallback<_etcdserverpb_AuthRoleAddResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * RoleDelete deletes a specified role.
   */
  RoleDelete(argument: _etcdserverpb_AuthRoleDeleteRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthRoleDeleteResponse__Output>): grpc.ClientUnaryCall;
  RoleDelete(argument: _etcdserverpb_AuthRoleDeleteRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthRoleDeleteResponse__Output>): grpc.ClientUnaryCall;
  RoleDelete(argument: _etcdserverpb_AuthRoleDeleteRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthRoleDeleteResponse__Output>): grpc.ClientUnaryCall;
  RoleDelete(argument: _etcdserverpb_AuthRoleDeleteRequest, callback: grpc.requestCallback<_etcdserverpb_AuthRoleDeleteResponse__Output>): grpc.ClientUnaryCall;
  /**
   * RoleDelete deletes a specified role.
   */
  roleDelete(argument: _etcdserverpb_AuthRoleDeleteRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthRoleDeleteResponse__Output>): grpc.ClientUnaryCall;
  roleDelete(argument: _etcdserverpb_AuthRoleDeleteRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthRoleDeleteResponse__Output>): grpc.ClientUnaryCall;
  roleDelete(argument: _etcdserverpb_AuthRoleDeleteRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthRoleDeleteResponse__Output>): grpc.ClientUnaryCall;
  roleDelete(argument: _etcdserverpb_AuthRoleDeleteRequest, callback: grpc.requestCallback<_etcdserverpb_AuthRoleDeleteResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * RoleGet gets detailed role information.
   */
  RoleGet(argument: _etcdserverpb_AuthRoleGetRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthRoleGetResponse__Output>): grpc.ClientUnaryCall;
  RoleGet(argument: _etcdserverpb_AuthRoleGetRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthRoleGetResponse__Output>): grpc.ClientUnaryCall;
  RoleGet(argument: _etcdserverpb_AuthRoleGetRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthRoleGetResponse__Output>): grpc.ClientUnaryCall;
  RoleGet(argument: _etcdserverpb_AuthRoleGetRequest, callback: grpc.requestCallback<_etcdserverpb_AuthRoleGetResponse__Output>): grpc.ClientUnaryCall;
  /**
   * RoleGet gets detailed role information.
   */
  roleGet(argument: _etcdserverpb_AuthRoleGetRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthRoleGetResponse__Output>): grpc.ClientUnaryCall;
  roleGet(argument: _etcdserverpb_AuthRoleGetRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthRoleGetResponse__Output>): grpc.ClientUnaryCall;
  roleGet(argument: _etcdserverpb_AuthRoleGetRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthRoleGetResponse__Output>): grpc.ClientUnaryCall;
  roleGet(argument: _etcdserverpb_AuthRoleGetRequest, callback: grpc.requestCallback<_etcdserverpb_AuthRoleGetResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * RoleGrantPermission grants a permission of a specified key or range to a specified role.
   */
  RoleGrantPermission(argument: _etcdserverpb_AuthRoleGrantPermissionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthRoleGrantPermissionResponse__Output>): grpc.ClientUnaryCall;
  RoleGrantPermission(argument: _etcdserverpb_AuthRoleGrantPermissionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthRoleGrantPermissionResponse__Output>): grpc.ClientUnaryCall;
  RoleGrantPermission(argument: _etcdserverpb_AuthRoleGrantPermissionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthRoleGrantPermissionResponse__Output>): grpc.ClientUnaryCall;
  RoleGrantPermission(argument: _etcdserverpb_AuthRoleGrantPermissionRequest, callback: grpc.requestCallback<_etcdserverpb_AuthRoleGrantPermissionResponse__Output>): grpc.ClientUnaryCall;
  /**
   * RoleGrantPermission grants a permission of a specified key or range to a specified role.
   */
  roleGrantPermission(argument: _etcdserverpb_AuthRoleGrantPermissionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthRoleGrantPermissionResponse__Output>): grpc.ClientUnaryCall;
  roleGrantPermission(argument: _etcdserverpb_AuthRoleGrantPermissionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthRoleGrantPermissionResponse__Output>): grpc.ClientUnaryCall;
  roleGrantPermission(argument: _etcdserverpb_AuthRoleGrantPermissionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthRoleGrantPermissionResponse__Output>): grpc.ClientUnaryCall;
  roleGrantPermission(argument: _etcdserverpb_AuthRoleGrantPermissionRequest, callback: grpc.requestCallback<_etcdserverpb_AuthRoleGrantPermissionResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * RoleList gets lists of all roles.
   */
  RoleList(argument: _etcdserverpb_AuthRoleListRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthRoleListResponse__Output>): grpc.ClientUnaryCall;
  RoleList(argument: _etcdserverpb_AuthRoleListRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthRoleListResponse__Output>): grpc.ClientUnaryCall;
  RoleList(argument: _etcdserverpb_AuthRoleListRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthRoleListResponse__Output>): grpc.ClientUnaryCall;
  RoleList(argument: _etcdserverpb_AuthRoleListRequest, callback: grpc.requestCallback<_etcdserverpb_AuthRoleListResponse__Output>): grpc.ClientUnaryCall;
  /**
   * RoleList gets lists of all roles.
   */
  roleList(argument: _etcdserverpb_AuthRoleListRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthRoleListResponse__Output>): grpc.ClientUnaryCall;
  roleList(argument: _etcdserverpb_AuthRoleListRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthRoleListResponse__Output>): grpc.ClientUnaryCall;
  roleList(argument: _etcdserverpb_AuthRoleListRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthRoleListResponse__Output>): grpc.ClientUnaryCall;
  roleList(argument: _etcdserverpb_AuthRoleListRequest, callback: grpc.requestCallback<_etcdserverpb_AuthRoleListResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * RoleRevokePermission revokes a key or range permission of a specified role.
   */
  RoleRevokePermission(argument: _etcdserverpb_AuthRoleRevokePermissionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthRoleRevokePermissionResponse__Output>): grpc.ClientUnaryCall;
  RoleRevokePermission(argument: _etcdserverpb_AuthRoleRevokePermissionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthRoleRevokePermissionResponse__Output>): grpc.ClientUnaryCall;
  RoleRevokePermission(argument: _etcdserverpb_AuthRoleRevokePermissionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthRoleRevokePermissionResponse__Output>): grpc.ClientUnaryCall;
  RoleRevokePermission(argument: _etcdserverpb_AuthRoleRevokePermissionRequest, callback: grpc.requestCallback<_etcdserverpb_AuthRoleRevokePermissionResponse__Output>): grpc.ClientUnaryCall;
  /**
   * RoleRevokePermission revokes a key or range permission of a specified role.
   */
  roleRevokePermission(argument: _etcdserverpb_AuthRoleRevokePermissionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthRoleRevokePermissionResponse__Output>): grpc.ClientUnaryCall;
  roleRevokePermission(argument: _etcdserverpb_AuthRoleRevokePermissionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthRoleRevokePermissionResponse__Output>): grpc.ClientUnaryCall;
  roleRevokePermission(argument: _etcdserverpb_AuthRoleRevokePermissionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthRoleRevokePermissionResponse__Output>): grpc.ClientUnaryCall;
  roleRevokePermission(argument: _etcdserverpb_AuthRoleRevokePermissionRequest, callback: grpc.requestCallback<_etcdserverpb_AuthRoleRevokePermissionResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * UserAdd adds a new user. User name cannot be empty.
   */
  UserAdd(argument: _etcdserverpb_AuthUserAddRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserAddResponse__Output>): grpc.ClientUnaryCall;
  UserAdd(argument: _etcdserverpb_AuthUserAddRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthUserAddResponse__Output>): grpc.ClientUnaryCall;
  UserAdd(argument: _etcdserverpb_AuthUserAddRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserAddResponse__Output>): grpc.ClientUnaryCall;
  UserAdd(argument: _etcdserverpb_AuthUserAddRequest, callback: grpc.requestCallback<_etcdserverpb_AuthUserAddResponse__Output>): grpc.ClientUnaryCall;
  /**
   * UserAdd adds a new user. User name cannot be empty.
   */
  userAdd(argument: _etcdserverpb_AuthUserAddRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserAddResponse__Output>): grpc.ClientUnaryCall;
  userAdd(argument: _etcdserverpb_AuthUserAddRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthUserAddResponse__Output>): grpc.ClientUnaryCall;
  userAdd(argument: _etcdserverpb_AuthUserAddRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserAddResponse__Output>): grpc.ClientUnaryCall;
  userAdd(argument: _etcdserverpb_AuthUserAddRequest, callback: grpc.requestCallback<_etcdserverpb_AuthUserAddResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * UserChangePassword changes the password of a specified user.
   */
  UserChangePassword(argument: _etcdserverpb_AuthUserChangePasswordRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserChangePasswordResponse__Output>): grpc.ClientUnaryCall;
  UserChangePassword(argument: _etcdserverpb_AuthUserChangePasswordRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthUserChangePasswordResponse__Output>): grpc.ClientUnaryCall;
  UserChangePassword(argument: _etcdserverpb_AuthUserChangePasswordRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserChangePasswordResponse__Output>): grpc.ClientUnaryCall;
  UserChangePassword(argument: _etcdserverpb_AuthUserChangePasswordRequest, callback: grpc.requestCallback<_etcdserverpb_AuthUserChangePasswordResponse__Output>): grpc.ClientUnaryCall;
  /**
   * UserChangePassword changes the password of a specified user.
   */
  userChangePassword(argument: _etcdserverpb_AuthUserChangePasswordRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserChangePasswordResponse__Output>): grpc.ClientUnaryCall;
  userChangePassword(argument: _etcdserverpb_AuthUserChangePasswordRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthUserChangePasswordResponse__Output>): grpc.ClientUnaryCall;
  userChangePassword(argument: _etcdserverpb_AuthUserChangePasswordRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserChangePasswordResponse__Output>): grpc.ClientUnaryCall;
  userChangePassword(argument: _etcdserverpb_AuthUserChangePasswordRequest, callback: grpc.requestCallback<_etcdserverpb_AuthUserChangePasswordResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * UserDelete deletes a specified user.
   */
  UserDelete(argument: _etcdserverpb_AuthUserDeleteRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserDeleteResponse__Output>): grpc.ClientUnaryCall;
  UserDelete(argument: _etcdserverpb_AuthUserDeleteRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthUserDeleteResponse__Output>): grpc.ClientUnaryCall;
  UserDelete(argument: _etcdserverpb_AuthUserDeleteRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserDeleteResponse__Output>): grpc.ClientUnaryCall;
  UserDelete(argument: _etcdserverpb_AuthUserDeleteRequest, callback: grpc.requestCallback<_etcdserverpb_AuthUserDeleteResponse__Output>): grpc.ClientUnaryCall;
  /**
   * UserDelete deletes a specified user.
   */
  userDelete(argument: _etcdserverpb_AuthUserDeleteRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserDeleteResponse__Output>): grpc.ClientUnaryCall;
  userDelete(argument: _etcdserverpb_AuthUserDeleteRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthUserDeleteResponse__Output>): grpc.ClientUnaryCall;
  userDelete(argument: _etcdserverpb_AuthUserDeleteRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserDeleteResponse__Output>): grpc.ClientUnaryCall;
  userDelete(argument: _etcdserverpb_AuthUserDeleteRequest, callback: grpc.requestCallback<_etcdserverpb_AuthUserDeleteResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * UserGet gets detailed user information.
   */
  UserGet(argument: _etcdserverpb_AuthUserGetRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserGetResponse__Output>): grpc.ClientUnaryCall;
  UserGet(argument: _etcdserverpb_AuthUserGetRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthUserGetResponse__Output>): grpc.ClientUnaryCall;
  UserGet(argument: _etcdserverpb_AuthUserGetRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserGetResponse__Output>): grpc.ClientUnaryCall;
  UserGet(argument: _etcdserverpb_AuthUserGetRequest, callback: grpc.requestCallback<_etcdserverpb_AuthUserGetResponse__Output>): grpc.ClientUnaryCall;
  /**
   * UserGet gets detailed user information.
   */
  userGet(argument: _etcdserverpb_AuthUserGetRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserGetResponse__Output>): grpc.ClientUnaryCall;
  userGet(argument: _etcdserverpb_AuthUserGetRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthUserGetResponse__Output>): grpc.ClientUnaryCall;
  userGet(argument: _etcdserverpb_AuthUserGetRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserGetResponse__Output>): grpc.ClientUnaryCall;
  userGet(argument: _etcdserverpb_AuthUserGetRequest, callback: grpc.requestCallback<_etcdserverpb_AuthUserGetResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * UserGrant grants a role to a specified user.
   */
  UserGrantRole(argument: _etcdserverpb_AuthUserGrantRoleRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserGrantRoleResponse__Output>): grpc.ClientUnaryCall;
  UserGrantRole(argument: _etcdserverpb_AuthUserGrantRoleRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthUserGrantRoleResponse__Output>): grpc.ClientUnaryCall;
  UserGrantRole(argument: _etcdserverpb_AuthUserGrantRoleRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserGrantRoleResponse__Output>): grpc.ClientUnaryCall;
  UserGrantRole(argument: _etcdserverpb_AuthUserGrantRoleRequest, callback: grpc.requestCallback<_etcdserverpb_AuthUserGrantRoleResponse__Output>): grpc.ClientUnaryCall;
  /**
   * UserGrant grants a role to a specified user.
   */
  userGrantRole(argument: _etcdserverpb_AuthUserGrantRoleRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserGrantRoleResponse__Output>): grpc.ClientUnaryCall;
  userGrantRole(argument: _etcdserverpb_AuthUserGrantRoleRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthUserGrantRoleResponse__Output>): grpc.ClientUnaryCall;
  userGrantRole(argument: _etcdserverpb_AuthUserGrantRoleRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserGrantRoleResponse__Output>): grpc.ClientUnaryCall;
  userGrantRole(argument: _etcdserverpb_AuthUserGrantRoleRequest, callback: grpc.requestCallback<_etcdserverpb_AuthUserGrantRoleResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * UserList gets a list of all users.
   */
  UserList(argument: _etcdserverpb_AuthUserListRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserListResponse__Output>): grpc.ClientUnaryCall;
  UserList(argument: _etcdserverpb_AuthUserListRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthUserListResponse__Output>): grpc.ClientUnaryCall;
  UserList(argument: _etcdserverpb_AuthUserListRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserListResponse__Output>): grpc.ClientUnaryCall;
  UserList(argument: _etcdserverpb_AuthUserListRequest, callback: grpc.requestCallback<_etcdserverpb_AuthUserListResponse__Output>): grpc.ClientUnaryCall;
  /**
   * UserList gets a list of all users.
   */
  userList(argument: _etcdserverpb_AuthUserListRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserListResponse__Output>): grpc.ClientUnaryCall;
  userList(argument: _etcdserverpb_AuthUserListRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthUserListResponse__Output>): grpc.ClientUnaryCall;
  userList(argument: _etcdserverpb_AuthUserListRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserListResponse__Output>): grpc.ClientUnaryCall;
  userList(argument: _etcdserverpb_AuthUserListRequest, callback: grpc.requestCallback<_etcdserverpb_AuthUserListResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * UserRevokeRole revokes a role of specified user.
   */
  UserRevokeRole(argument: _etcdserverpb_AuthUserRevokeRoleRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserRevokeRoleResponse__Output>): grpc.ClientUnaryCall;
  UserRevokeRole(argument: _etcdserverpb_AuthUserRevokeRoleRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthUserRevokeRoleResponse__Output>): grpc.ClientUnaryCall;
  UserRevokeRole(argument: _etcdserverpb_AuthUserRevokeRoleRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserRevokeRoleResponse__Output>): grpc.ClientUnaryCall;
  UserRevokeRole(argument: _etcdserverpb_AuthUserRevokeRoleRequest, callback: grpc.requestCallback<_etcdserverpb_AuthUserRevokeRoleResponse__Output>): grpc.ClientUnaryCall;
  /**
   * UserRevokeRole revokes a role of specified user.
   */
  userRevokeRole(argument: _etcdserverpb_AuthUserRevokeRoleRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserRevokeRoleResponse__Output>): grpc.ClientUnaryCall;
  userRevokeRole(argument: _etcdserverpb_AuthUserRevokeRoleRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_AuthUserRevokeRoleResponse__Output>): grpc.ClientUnaryCall;
  userRevokeRole(argument: _etcdserverpb_AuthUserRevokeRoleRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_AuthUserRevokeRoleResponse__Output>): grpc.ClientUnaryCall;
  userRevokeRole(argument: _etcdserverpb_AuthUserRevokeRoleRequest, callback: grpc.requestCallback<_etcdserverpb_AuthUserRevokeRoleResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface AuthHandlers extends grpc.UntypedServiceImplementation {
  /**
   * AuthDisable disables authentication.
   */
  AuthDisable: grpc.handleUnaryCall<_etcdserverpb_AuthDisableRequest__Output, _etcdserverpb_AuthDisableResponse>;
  
  /**
   * AuthEnable enables authentication.
   */
  AuthEnable: grpc.handleUnaryCall<_etcdserverpb_AuthEnableRequest__Output, _etcdserverpb_AuthEnableResponse>;
  
  /**
   * AuthStatus displays authentication status.
   */
  AuthStatus: grpc.handleUnaryCall<_etcdserverpb_AuthStatusRequest__Output, _etcdserverpb_AuthStatusResponse>;
  
  /**
   * Authenticate processes an authenticate request.
   */
  Authenticate: grpc.handleUnaryCall<_etcdserverpb_AuthenticateRequest__Output, _etcdserverpb_AuthenticateResponse>;
  
  /**
   * RoleAdd adds a new role. Role name cannot be empty.
   */
  RoleAdd: grpc.handleUnaryCall<_etcdserverpb_AuthRoleAddRequest__Output, _etcdserverpb_AuthRoleAddResponse>;
  
  /**
   * RoleDelete deletes a specified role.
   */
  RoleDelete: grpc.handleUnaryCall<_etcdserverpb_AuthRoleDeleteRequest__Output, _etcdserverpb_AuthRoleDeleteResponse>;
  
  /**
   * RoleGet gets detailed role information.
   */
  RoleGet: grpc.handleUnaryCall<_etcdserverpb_AuthRoleGetRequest__Output, _etcdserverpb_AuthRoleGetResponse>;
  
  /**
   * RoleGrantPermission grants a permission of a specified key or range to a specified role.
   */
  RoleGrantPermission: grpc.handleUnaryCall<_etcdserverpb_AuthRoleGrantPermissionRequest__Output, _etcdserverpb_AuthRoleGrantPermissionResponse>;
  
  /**
   * RoleList gets lists of all roles.
   */
  RoleList: grpc.handleUnaryCall<_etcdserverpb_AuthRoleListRequest__Output, _etcdserverpb_AuthRoleListResponse>;
  
  /**
   * RoleRevokePermission revokes a key or range permission of a specified role.
   */
  RoleRevokePermission: grpc.handleUnaryCall<_etcdserverpb_AuthRoleRevokePermissionRequest__Output, _etcdserverpb_AuthRoleRevokePermissionResponse>;
  
  /**
   * UserAdd adds a new user. User name cannot be empty.
   */
  UserAdd: grpc.handleUnaryCall<_etcdserverpb_AuthUserAddRequest__Output, _etcdserverpb_AuthUserAddResponse>;
  
  /**
   * UserChangePassword changes the password of a specified user.
   */
  UserChangePassword: grpc.handleUnaryCall<_etcdserverpb_AuthUserChangePasswordRequest__Output, _etcdserverpb_AuthUserChangePasswordResponse>;
  
  /**
   * UserDelete deletes a specified user.
   */
  UserDelete: grpc.handleUnaryCall<_etcdserverpb_AuthUserDeleteRequest__Output, _etcdserverpb_AuthUserDeleteResponse>;
  
  /**
   * UserGet gets detailed user information.
   */
  UserGet: grpc.handleUnaryCall<_etcdserverpb_AuthUserGetRequest__Output, _etcdserverpb_AuthUserGetResponse>;
  
  /**
   * UserGrant grants a role to a specified user.
   */
  UserGrantRole: grpc.handleUnaryCall<_etcdserverpb_AuthUserGrantRoleRequest__Output, _etcdserverpb_AuthUserGrantRoleResponse>;
  
  /**
   * UserList gets a list of all users.
   */
  UserList: grpc.handleUnaryCall<_etcdserverpb_AuthUserListRequest__Output, _etcdserverpb_AuthUserListResponse>;
  
  /**
   * UserRevokeRole revokes a role of specified user.
   */
  UserRevokeRole: grpc.handleUnaryCall<_etcdserverpb_AuthUserRevokeRoleRequest__Output, _etcdserverpb_AuthUserRevokeRoleResponse>;
  
}

export interface AuthDefinition extends grpc.ServiceDefinition {
  AuthDisable: MethodDefinition<_etcdserverpb_AuthDisableRequest, _etcdserverpb_AuthDisableResponse, _etcdserverpb_AuthDisableRequest__Output, _etcdserverpb_AuthDisableResponse__Output>
  AuthEnable: MethodDefinition<_etcdserverpb_AuthEnableRequest, _etcdserverpb_AuthEnableResponse, _etcdserverpb_AuthEnableRequest__Output, _etcdserverpb_AuthEnableResponse__Output>
  AuthStatus: MethodDefinition<_etcdserverpb_AuthStatusRequest, _etcdserverpb_AuthStatusResponse, _etcdserverpb_AuthStatusRequest__Output, _etcdserverpb_AuthStatusResponse__Output>
  Authenticate: MethodDefinition<_etcdserverpb_AuthenticateRequest, _etcdserverpb_AuthenticateResponse, _etcdserverpb_AuthenticateRequest__Output, _etcdserverpb_AuthenticateResponse__Output>
  RoleAdd: MethodDefinition<_etcdserverpb_AuthRoleAddRequest, _etcdserverpb_AuthRoleAddResponse, _etcdserverpb_AuthRoleAddRequest__Output, _etcdserverpb_AuthRoleAddResponse__Output>
  RoleDelete: MethodDefinition<_etcdserverpb_AuthRoleDeleteRequest, _etcdserverpb_AuthRoleDeleteResponse, _etcdserverpb_AuthRoleDeleteRequest__Output, _etcdserverpb_AuthRoleDeleteResponse__Output>
  RoleGet: MethodDefinition<_etcdserverpb_AuthRoleGetRequest, _etcdserverpb_AuthRoleGetResponse, _etcdserverpb_AuthRoleGetRequest__Output, _etcdserverpb_AuthRoleGetResponse__Output>
  RoleGrantPermission: MethodDefinition<_etcdserverpb_AuthRoleGrantPermissionRequest, _etcdserverpb_AuthRoleGrantPermissionResponse, _etcdserverpb_AuthRoleGrantPermissionRequest__Output, _etcdserverpb_AuthRoleGrantPermissionResponse__Output>
  RoleList: MethodDefinition<_etcdserverpb_AuthRoleListRequest, _etcdserverpb_AuthRoleListResponse, _etcdserverpb_AuthRoleListRequest__Output, _etcdserverpb_AuthRoleListResponse__Output>
  RoleRevokePermission: MethodDefinition<_etcdserverpb_AuthRoleRevokePermissionRequest, _etcdserverpb_AuthRoleRevokePermissionResponse, _etcdserverpb_AuthRoleRevokePermissionRequest__Output, _etcdserverpb_AuthRoleRevokePermissionResponse__Output>
  UserAdd: MethodDefinition<_etcdserverpb_AuthUserAddRequest, _etcdserverpb_AuthUserAddResponse, _etcdserverpb_AuthUserAddRequest__Output, _etcdserverpb_AuthUserAddResponse__Output>
  UserChangePassword: MethodDefinition<_etcdserverpb_AuthUserChangePasswordRequest, _etcdserverpb_AuthUserChangePasswordResponse, _etcdserverpb_AuthUserChangePasswordRequest__Output, _etcdserverpb_AuthUserChangePasswordResponse__Output>
  UserDelete: MethodDefinition<_etcdserverpb_AuthUserDeleteRequest, _etcdserverpb_AuthUserDeleteResponse, _etcdserverpb_AuthUserDeleteRequest__Output, _etcdserverpb_AuthUserDeleteResponse__Output>
  UserGet: MethodDefinition<_etcdserverpb_AuthUserGetRequest, _etcdserverpb_AuthUserGetResponse, _etcdserverpb_AuthUserGetRequest__Output, _etcdserverpb_AuthUserGetResponse__Output>
  UserGrantRole: MethodDefinition<_etcdserverpb_AuthUserGrantRoleRequest, _etcdserverpb_AuthUserGrantRoleResponse, _etcdserverpb_AuthUserGrantRoleRequest__Output, _etcdserverpb_AuthUserGrantRoleResponse__Output>
  UserList: MethodDefinition<_etcdserverpb_AuthUserListRequest, _etcdserverpb_AuthUserListResponse, _etcdserverpb_AuthUserListRequest__Output, _etcdserverpb_AuthUserListResponse__Output>
  UserRevokeRole: MethodDefinition<_etcdserverpb_AuthUserRevokeRoleRequest, _etcdserverpb_AuthUserRevokeRoleResponse, _etcdserverpb_AuthUserRevokeRoleRequest__Output, _etcdserverpb_AuthUserRevokeRoleResponse__Output>
}
