/**
 * Where etcd's .proto files are: in the source tree, for the tools that read them (the type and
 * descriptor generator, generate-types.ts) and for tests. The agent never reads them: it loads the
 * descriptor generated from them (generated/json-descriptor.ts), which survives bundling, where a
 * path relative to import.meta.url would name a directory beside the bundle.
 */
import { fileURLToPath } from 'node:url';

/** The protos' directory in the source tree (this file runs as dist/src/datastore/etcd/*.js). */
export const PROTO_DIR = fileURLToPath(new URL('../../../../src/datastore/etcd/proto/', import.meta.url));
/** The file that imports the others. */
export const PROTO_ROOT = 'rpc.proto';
