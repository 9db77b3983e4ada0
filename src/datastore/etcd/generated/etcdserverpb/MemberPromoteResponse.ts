// Original file: src/datastore/etcd/proto/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';
import type { Member as _etcdserverpb_Member, Member__Output as _etcdserverpb_Member__Output } from '../etcdserverpb/Member.js';

export interface MemberPromoteResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  /**
   * members is a list of all members after promoting the member.
   */
  'members'?: (_etcdserverpb_Member)[];
}

export interface MemberPromoteResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  /**
   * members is a list of all members after promoting the member.
   */
  'members': (_etcdserverpb_Member__Output)[];
}
