/**
 * KeyValueStore on etcd v3's own gRPC API (@grpc/grpc-js, etcd's proto in ./etcd/proto).
 *
 * Not the `etcd3` package, whose code was read for this (1.1.2, lib/watch.js): its watcher
 * resumes after a reconnect from the last response's header revision + 1, and etcd sends the
 * store's current revision there, also in the "created" response and while a watcher still
 * catches up in batches, so a stream that breaks then skips the events not yet delivered; and a
 * compaction reaches the caller only as a generic "Watcher canceled" error without the compact
 * revision. Here a watch resumes from its last event's mod_revision + 1 (as etcd's Go clientv3
 * does), takes a header revision only from progress notifications (sent to synced watchers
 * only), and a compaction is ErrCompacted.
 */
import { backoffDelayMs } from '../util/backoff.js';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { rangeEnd, type KeyRange } from './keys.js';
import { decodeWatchResponse, type WatchResponseMessage } from './etcd/watch-response.js';
import {
  ErrCompacted,
  StoreUnavailableError,
  type KeyValue,
  type KeyValueStore,
  type Listing,
  type StoreEvent,
  type Watch,
  type WatchHandlers,
  type WriteOp,
} from './store.js';

export interface EtcdTls {
  /** PEM of the CA that signed etcd's server certificate. */
  readonly ca: Buffer;
  /** Client certificate and key (PEM), when etcd asks for one (--client-cert-auth). */
  readonly cert?: Buffer;
  readonly key?: Buffer;
}

export interface EtcdStoreOptions {
  /** host:port, http://host:port or https://host:port; tried in turn when one is unavailable. */
  readonly endpoints: readonly string[];
  readonly tls?: EtcdTls;
  readonly auth?: { readonly user: string; readonly password: string };
  /** Deadline of each unary call. */
  readonly callTimeoutMs?: number;
  /** Reconnect backoff of watches: from initial, doubling up to max, each with ±50% jitter. */
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  /** Keys per list page, so a 1M-key range never arrives as one gRPC message. */
  readonly pageSize?: number;
}

/** Reads the TLS files named by flags or environment variables. */
export function readEtcdTls(files: {
  ca: string;
  cert?: string | undefined;
  key?: string | undefined;
}): EtcdTls {
  return {
    ca: readFileSync(files.ca),
    ...(files.cert !== undefined && { cert: readFileSync(files.cert) }),
    ...(files.key !== undefined && { key: readFileSync(files.key) }),
  };
}

const PROTO = fileURLToPath(new URL('../../../src/datastore/etcd/proto/rpc.proto', import.meta.url));

interface Pb {
  etcdserverpb: {
    KV: grpc.ServiceClientConstructor;
    Watch: grpc.ServiceClientConstructor;
    Auth: grpc.ServiceClientConstructor;
  };
}
let loaded: Pb | undefined;
function pb(): Pb {
  loaded ??= grpc.loadPackageDefinition(
    withWatchDecoder(
      protoLoader.loadSync(PROTO, {
        keepCase: true,
        // int64s as numbers: revisions (all this reads of them) stay far below 2^53, and turning
        // each into a decimal string was ~15 % of what an agent allocated at 1,000 endpoint
        // changes a second, when watch responses still came through here (bench/fleet (c), a
        // sampling heap profile). The random cluster and member ids lose precision as numbers;
        // they are not read.
        longs: Number,
        enums: String,
        defaults: true,
        oneofs: true,
      }),
    ),
  ) as unknown as Pb;
  return loaded;
}

/** The definitions with Watch's responses read by decodeWatchResponse (etcd/watch-response.ts says why). */
function withWatchDecoder(def: protoLoader.PackageDefinition): protoLoader.PackageDefinition {
  const service = def['etcdserverpb.Watch'] as protoLoader.ServiceDefinition;
  const watch = service.Watch as protoLoader.MethodDefinition<object, object>;
  const responseDeserialize: protoLoader.Deserialize<object> = decodeWatchResponse;
  return { ...def, 'etcdserverpb.Watch': { ...service, Watch: { ...watch, responseDeserialize } } };
}

interface PbKeyValue {
  key: Buffer;
  value: Buffer;
  mod_revision: number;
}
interface PbHeader {
  revision: number;
}
interface PbRangeResponse {
  header: PbHeader;
  kvs: PbKeyValue[];
  more: boolean;
}
type Unary = (
  req: object,
  md: grpc.Metadata,
  opts: grpc.CallOptions,
  cb: (err: grpc.ServiceError | null, res: unknown) => void,
) => void;
interface Clients {
  kv: grpc.Client & Record<'Range' | 'Txn' | 'Compact', Unary>;
  watch: grpc.Client & { Watch(md: grpc.Metadata): grpc.ClientDuplexStream<object, WatchResponseMessage> };
  auth: grpc.Client & Record<'Authenticate', Unary>;
}

export class EtcdStore implements KeyValueStore {
  private readonly endpoints: { target: string; secure: boolean }[];
  private current = 0;
  private clients: Clients | undefined;
  private token: string | undefined;
  private readonly watches = new Set<EtcdWatch>();
  private closed = false;
  readonly callTimeoutMs: number;
  readonly backoff: { readonly initialMs: number; readonly maxMs: number };
  readonly pageSize: number;

  constructor(private readonly options: EtcdStoreOptions) {
    if (options.endpoints.length === 0) throw new Error('etcd: at least one endpoint is required');
    this.endpoints = options.endpoints.map((e) => {
      const m = /^(?:(https?):\/\/)?([^/]+)\/?$/.exec(e);
      if (!m) throw new Error(`etcd: endpoint ${JSON.stringify(e)} is not host:port or http(s)://host:port`);
      return {
        target: m[2] as string,
        secure: m[1] === 'https' || (m[1] === undefined && options.tls !== undefined),
      };
    });
    this.callTimeoutMs = options.callTimeoutMs ?? 5000;
    this.backoff = options.backoff ?? { initialMs: 200, maxMs: 10_000 };
    this.pageSize = options.pageSize ?? 10_000;
  }

  private connect(): Clients {
    if (this.closed) throw new StoreUnavailableError('etcd: the store is closed');
    if (this.clients) return this.clients;
    const ep = this.endpoints[this.current % this.endpoints.length] as { target: string; secure: boolean };
    const tls = this.options.tls;
    if (ep.secure && !tls) throw new Error(`etcd: ${ep.target} is https but no CA is given`);
    const creds =
      ep.secure && tls
        ? grpc.credentials.createSsl(tls.ca, tls.key ?? null, tls.cert ?? null)
        : grpc.credentials.createInsecure();
    const channelOptions = {
      // A silent partition is noticed by keepalive (a killed etcd resets the connection at once).
      // etcd's server refuses pings without an open call and more often than its
      // --grpc-keepalive-min-time (5 s): it answered 10 s with permit-without-calls by GOAWAY
      // "too_many_pings" (seen in bench/fleet), so pings go only with calls, every 30 s.
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
      'grpc.keepalive_permit_without_calls': 0,
      'grpc.max_receive_message_length': 64 * 1024 * 1024,
      // The channel's own reconnect follows the same backoff as the watches (grpc-js: 1 s to 120 s).
      'grpc.initial_reconnect_backoff_ms': this.backoff.initialMs,
      'grpc.max_reconnect_backoff_ms': this.backoff.maxMs,
    };
    const p = pb().etcdserverpb;
    const kv = new p.KV(ep.target, creds, channelOptions) as unknown as Clients['kv'];
    // One channel for all three services.
    const shared = { channelOverride: kv.getChannel() };
    this.clients = {
      kv,
      watch: new p.Watch(ep.target, creds, shared) as unknown as Clients['watch'],
      auth: new p.Auth(ep.target, creds, shared) as unknown as Clients['auth'],
    };
    return this.clients;
  }

  /** On an unavailable endpoint: the next one, on a new channel. */
  private failover(): void {
    if (this.endpoints.length < 2 || !this.clients) return;
    this.clients.kv.close();
    this.clients = undefined;
    this.current++;
  }

  /**
   * Call metadata: the auth token, fetched on first use and again after etcd rejects it.
   * waitForReady (a unary call while the channel reconnects waits for it, up to its deadline,
   * instead of failing at once) is for unary calls only: a watch's break must be seen at once
   * (view.ts's staleness).
   */
  async metadata(waitForReady = false): Promise<grpc.Metadata> {
    const md = new grpc.Metadata({ waitForReady });
    const auth = this.options.auth;
    if (!auth) return md;
    if (this.token === undefined) {
      const res = (await this.unaryRaw(
        'auth',
        'Authenticate',
        { name: auth.user, password: auth.password },
        new grpc.Metadata({ waitForReady }),
      )) as { token: string };
      this.token = res.token;
    }
    md.set('token', this.token);
    return md;
  }

  private unaryRaw(service: 'kv' | 'auth', method: string, req: object, md: grpc.Metadata): Promise<unknown> {
    const clients = this.connect();
    const client = clients[service] as unknown as Record<string, Unary>;
    const fn = client[method] as Unary;
    return new Promise((resolve, reject) => {
      fn.call(client, req, md, { deadline: Date.now() + this.callTimeoutMs }, (err, res) => {
        if (!err) return resolve(res);
        if (err.code === grpc.status.UNAVAILABLE || err.code === grpc.status.DEADLINE_EXCEEDED) {
          this.failover();
          return reject(
            new StoreUnavailableError(`etcd ${method}: ${err.details || err.message}`, { cause: err }),
          );
        }
        if (err.code === grpc.status.UNAUTHENTICATED) this.token = undefined;
        reject(new Error(`etcd ${method}: ${err.details || err.message}`, { cause: err }));
      });
    });
  }

  private async unary(method: 'Range' | 'Txn' | 'Compact', req: object): Promise<unknown> {
    try {
      return await this.unaryRaw('kv', method, req, await this.metadata(true));
    } catch (err) {
      // An expired token: once more with a fresh one.
      if (this.options.auth && this.token === undefined && !(err instanceof StoreUnavailableError)) {
        return this.unaryRaw('kv', method, req, await this.metadata(true));
      }
      throw err;
    }
  }

  async list(range: KeyRange): Promise<Listing> {
    const end = rangeEnd(range);
    const kvs: KeyValue[] = [];
    let revision = 0;
    let from = Buffer.from(range.key, 'utf8');
    // Pages at the first page's revision: one consistent listing however many pages.
    for (;;) {
      const res = (await this.unary('Range', {
        key: from,
        ...(end && { range_end: end }),
        ...(end && { limit: this.pageSize }),
        ...(revision > 0 && { revision }),
      })) as PbRangeResponse;
      if (revision === 0) revision = Number(res.header.revision);
      for (const kv of res.kvs) kvs.push(toKeyValue(kv));
      const last = res.kvs[res.kvs.length - 1];
      if (!res.more || !last) return { kvs, revision };
      from = Buffer.concat([last.key, Buffer.from([0])]);
    }
  }

  async commit(ops: readonly WriteOp[]): Promise<number> {
    const success = ops.map((op) =>
      op.type === 'put'
        ? { request_put: { key: Buffer.from(op.key), value: Buffer.from(op.value) } }
        : {
            request_delete_range: {
              key: Buffer.from(op.key),
              ...(op.prefix && { range_end: rangeEnd({ key: op.key, prefix: true }) }),
            },
          },
    );
    let res: { header: PbHeader };
    try {
      res = (await this.unary('Txn', { compare: [], success, failure: [] })) as { header: PbHeader };
    } catch (err) {
      // etcd caps a transaction at --max-txn-ops operations (default 128) and a request at
      // --max-request-bytes (default 1.5 MiB): one all-or-nothing write cannot be larger.
      if (/too many operations in txn request|request is too large/.test((err as Error).message)) {
        throw new Error(
          `${(err as Error).message}: ${ops.length} operations in one transaction exceed this etcd's ` +
            '--max-txn-ops or --max-request-bytes; raise them on the etcd members, or write fewer records at once',
          { cause: err },
        );
      }
      throw err;
    }
    return Number(res.header.revision);
  }

  /** Drops the history before `revision` (operators and tests; etcd also does it on its own). */
  async compact(revision: number): Promise<void> {
    await this.unary('Compact', { revision, physical: true });
  }

  watch(range: KeyRange, fromRevision: number, handlers: WatchHandlers): Watch {
    const w = new EtcdWatch(this, range, fromRevision, handlers, () => this.watches.delete(w));
    this.watches.add(w);
    w.open();
    return w;
  }

  /** The watch service client, for EtcdWatch. */
  watchClient(): Clients['watch'] {
    return this.connect().watch;
  }

  noteUnavailable(): void {
    this.failover();
  }

  async close(): Promise<void> {
    for (const w of this.watches) w.cancel();
    this.closed = true;
    this.clients?.kv.close();
    this.clients = undefined;
    await Promise.resolve();
  }
}

function toKeyValue(kv: PbKeyValue): KeyValue {
  return {
    key: kv.key.toString('utf8'),
    value: kv.value.toString('utf8'),
    modRevision: Number(kv.mod_revision),
  };
}

/** Exponential backoff with ±50% jitter, so agents that lost etcd together do not return together. */
export function backoffDelay(
  attempt: number,
  b: { readonly initialMs: number; readonly maxMs: number },
): number {
  return backoffDelayMs({ ...b, jitter: 0.5 }, attempt);
}

class EtcdWatch implements Watch {
  nextRevision: number;
  private stream: grpc.ClientDuplexStream<object, WatchResponseMessage> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private attempt = 0;
  private done = false;

  constructor(
    private readonly store: EtcdStore,
    private readonly range: KeyRange,
    fromRevision: number,
    private readonly handlers: WatchHandlers,
    private readonly onClosed: () => void,
  ) {
    this.nextRevision = fromRevision;
  }

  open(): void {
    if (this.done) return;
    this.store.metadata().then(
      (md) => {
        if (this.done) return;
        const stream = this.store.watchClient().Watch(md);
        this.stream = stream;
        stream.on('data', (res: WatchResponseMessage) => this.onResponse(stream, res));
        stream.on('error', (err: Error) => this.broken(stream, err));
        stream.on('end', () =>
          this.broken(stream, new StoreUnavailableError('etcd closed the watch stream')),
        );
        const end = rangeEnd(this.range);
        stream.write({
          create_request: {
            key: Buffer.from(this.range.key),
            ...(end && { range_end: end }),
            start_revision: this.nextRevision,
            progress_notify: true,
          },
        });
      },
      (err: unknown) => this.broken(undefined, err as Error),
    );
  }

  private onResponse(
    stream: grpc.ClientDuplexStream<object, WatchResponseMessage>,
    res: WatchResponseMessage,
  ): void {
    if (this.done || stream !== this.stream) return;
    if (res.canceled) {
      const compact = res.compactRevision;
      this.finish(
        compact > 0
          ? new ErrCompacted(this.nextRevision, compact)
          : new Error(`etcd canceled the watch: ${res.cancelReason || 'no reason given'}`),
      );
      return;
    }
    if (res.created) {
      this.attempt = 0;
      this.handlers.onConnect?.();
      return;
    }
    if (res.events.length === 0) {
      // A progress notification: everything up to the header's revision is delivered.
      this.nextRevision = Math.max(this.nextRevision, res.revision + 1);
      return;
    }
    const events = res.events;
    this.nextRevision = (events[events.length - 1] as StoreEvent).revision + 1;
    this.handlers.onEvents(events);
  }

  private broken(
    stream: grpc.ClientDuplexStream<object, WatchResponseMessage> | undefined,
    err: Error,
  ): void {
    if (this.done || (stream !== undefined && stream !== this.stream)) return;
    this.stream = undefined;
    stream?.cancel();
    if ((err as grpc.ServiceError).code === grpc.status.UNAVAILABLE) this.store.noteUnavailable();
    this.handlers.onDisconnect?.(err);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.open(), backoffDelay(this.attempt++, this.store.backoff));
  }

  private finish(err: Error): void {
    this.cancel();
    this.handlers.onEnd(err);
  }

  cancel(): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    const s = this.stream;
    this.stream = undefined;
    s?.end();
    s?.cancel();
    this.onClosed();
  }
}
