// Original file: src/datastore/etcd/proto/auth.proto


// Original file: src/datastore/etcd/proto/auth.proto

export const _authpb_Permission_Type = {
  Read: 'Read',
  Write: 'Write',
  Readwrite: 'Readwrite',
} as const;

export type _authpb_Permission_Type =
  | 'Read'
  | 0
  | 'Write'
  | 1
  | 'Readwrite'
  | 2

export type _authpb_Permission_Type__Output = typeof _authpb_Permission_Type[keyof typeof _authpb_Permission_Type]

/**
 * Permission is a single entity
 */
export interface Permission {
  'permType'?: (_authpb_Permission_Type);
  'key'?: (Buffer | Uint8Array | string);
  'range_end'?: (Buffer | Uint8Array | string);
}

/**
 * Permission is a single entity
 */
export interface Permission__Output {
  'permType': (_authpb_Permission_Type__Output);
  'key': (Buffer);
  'range_end': (Buffer);
}
