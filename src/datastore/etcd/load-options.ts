import type * as protoLoader from '@grpc/proto-loader';

/**
 * How etcd's protos are loaded, at run time (grpc-api.ts) and by the generator (generate-types.ts)
 * alike: the generated types say what the loader hands over under exactly these options.
 * `longs: Number`: revisions (all vppnet reads of int64s) stay far below 2^53, and turning each
 * into a decimal string was ~15 % of what an agent allocated at 1,000 endpoint changes a second
 * (bench/fleet (c), a sampling heap profile); the random cluster and member ids lose precision as
 * numbers, and are not read.
 */
export const LOAD_OPTIONS = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
} satisfies protoLoader.Options;
