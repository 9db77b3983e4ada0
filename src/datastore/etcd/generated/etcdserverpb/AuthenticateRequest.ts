// Original file: src/datastore/etcd/proto/rpc.proto


export interface AuthenticateRequest {
  'name'?: (string);
  'password'?: (string);
}

export interface AuthenticateRequest__Output {
  'name': (string);
  'password': (string);
}
