// Original file: src/datastore/etcd/proto/rpc.proto


export interface AuthUserGetRequest {
  'name'?: (string);
}

export interface AuthUserGetRequest__Output {
  'name': (string);
}
