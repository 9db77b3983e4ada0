// Original file: src/datastore/etcd/proto/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';
import type { Member as _etcdserverpb_Member, Member__Output as _etcdserverpb_Member__Output } from '../etcdserverpb/Member.js';

export interface MemberAddResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  /**
   * member is the member information for the added member.
   */
  'member'?: (_etcdserverpb_Member | null);
  /**
   * members is a list of all members after adding the new member.
   */
  'members'?: (_etcdserverpb_Member)[];
}

export interface MemberAddResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  /**
   * member is the member information for the added member.
   */
  'member': (_etcdserverpb_Member__Output | null);
  /**
   * members is a list of all members after adding the new member.
   */
  'members': (_etcdserverpb_Member__Output)[];
}
