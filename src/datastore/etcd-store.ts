/**
 * KeyValueStore on etcd v3's own gRPC API: @grpc/grpc-js with etcd's protos (./etcd/proto),
 * typed by proto-loader-gen-types' output (./etcd/generated); the link to the cluster (failover,
 * auth token) in ./etcd/connection.ts, each watch in ./etcd/watch.ts.
 *
 * Not the `etcd3` package (1.1.2, microsoft/etcd3, read for this: src/watch.ts), which would
 * replace all of ./etcd but breaks what the view is built on:
 * - its watcher resumes after a reconnect from the last response's header revision + 1, and etcd
 *   sends the store's current revision there, also in the "created" response and while a watcher
 *   still catches up in batches, so a stream that breaks then skips the events not yet delivered;
 * - a compaction reaches the caller as a generic "Watcher canceled" error without the compact
 *   revision, where the view needs ErrCompacted to re-list;
 * - its reconnect backoff and timeouts run on Node's own setTimeout, not on injected Timers.
 * Transactions, auth and failover it has; they are a few calls here.
 */
import { readFileSync } from 'node:fs';
import { systemTimers, type Timers } from '../util/timers.js';
import { EtcdConnection, type EtcdTls } from './etcd/connection.js';
import { parseEtcdEndpoint } from './etcd/endpoint.js';
import type { RangeResponseMessage } from './etcd/range-response.js';
import type { CompactionResponse__Output } from './etcd/generated/etcdserverpb/CompactionResponse.js';
import type { RequestOp } from './etcd/generated/etcdserverpb/RequestOp.js';
import type { ResponseHeader__Output } from './etcd/generated/etcdserverpb/ResponseHeader.js';
import type { TxnResponse__Output } from './etcd/generated/etcdserverpb/TxnResponse.js';
import { EtcdWatch } from './etcd/watch.js';
import { rangeEnd, type KeyRange } from './keys.js';
import { DEFAULT_STORE_BACKOFF, RetrySchedule, type StoreBackoff } from './retry-schedule.js';
import type { KeyValue, KeyValueStore, Listing, Watch, WatchHandlers, WriteOp } from './store.js';

/** The byte after a key: the next page starts just after the last key of this one. */
const ZERO_BYTE = Buffer.from([0]);
export type { EtcdTls };

export interface EtcdStoreOptions {
  /** host:port, http://host:port or https://host:port; tried in turn when one is unavailable. */
  readonly endpoints: readonly string[];
  readonly tls?: EtcdTls;
  readonly auth?: { readonly user: string; readonly password: string };
  /** Deadline of each unary call. */
  readonly callTimeoutMs?: number;
  /** Reconnect backoff of watches and of the channel (retry-schedule.ts). */
  readonly backoff?: StoreBackoff;
  /** Keys per list page, so a 1M-key range never arrives as one gRPC message. */
  readonly pageSize?: number;
  /** The clock of the watches' reconnect backoff. */
  readonly timers?: Timers;
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

export class EtcdStore implements KeyValueStore {
  readonly callTimeoutMs: number;
  readonly backoff: StoreBackoff;
  readonly pageSize: number;
  readonly #connection: EtcdConnection;
  readonly #timers: Timers;
  readonly #watches = new Set<EtcdWatch>();

  constructor(options: EtcdStoreOptions) {
    this.callTimeoutMs = options.callTimeoutMs ?? 5000;
    this.backoff = options.backoff ?? DEFAULT_STORE_BACKOFF;
    this.pageSize = options.pageSize ?? 10_000;
    this.#timers = options.timers ?? systemTimers;
    this.#connection = new EtcdConnection({
      endpoints: options.endpoints.map((e) => {
        const endpoint = parseEtcdEndpoint(e, options.tls !== undefined);
        if (!endpoint)
          throw new Error(`etcd: endpoint ${JSON.stringify(e)} is not host:port or http(s)://host:port`);
        return endpoint;
      }),
      tls: options.tls,
      auth: options.auth,
      callTimeoutMs: this.callTimeoutMs,
      backoff: this.backoff,
    });
  }

  async list(range: KeyRange): Promise<Listing> {
    const kvs: KeyValue[] = [];
    const revision = await this.listPages(range, (page) => {
      for (const kv of page) kvs.push(kv);
    });
    return { kvs, revision };
  }

  async listPages(range: KeyRange, onPage: (kvs: readonly KeyValue[]) => void): Promise<number> {
    const end = rangeEnd(range);
    const page = (from: Buffer, revision: number): Promise<RangeResponseMessage> => {
      const request = {
        key: from,
        ...(end && { range_end: end, limit: this.pageSize }),
        ...(revision > 0 && { revision }),
      };
      return this.#connection.unary<RangeResponseMessage>('Range', (c, md, o, done) =>
        c.range(request, md, o, done),
      );
    };
    let res = await page(Buffer.from(range.key, 'utf8'), 0);
    // Pages at the first page's revision: one consistent listing however many pages.
    const revision = res.revision;
    for (;;) {
      // The next page is asked for before this one is handed over: etcd reads it while the
      // caller parses this one.
      const next =
        res.more && res.lastKey !== undefined
          ? page(Buffer.concat([res.lastKey, ZERO_BYTE]), revision)
          : undefined;
      try {
        onPage(res.kvs);
      } catch (err) {
        // Its failure, if any, is nobody's once this one is thrown.
        next?.catch(() => undefined);
        throw err;
      }
      if (next === undefined) return revision;
      res = await next;
    }
  }

  async commit(ops: readonly WriteOp[]): Promise<number> {
    const success = ops.map((op): RequestOp => {
      if (op.type === 'put')
        return { request_put: { key: Buffer.from(op.key), value: Buffer.from(op.value) } };
      const end = rangeEnd({ key: op.key, prefix: op.prefix === true });
      return { request_delete_range: { key: Buffer.from(op.key), ...(end && { range_end: end }) } };
    });
    const request = { compare: [], success, failure: [] };
    try {
      const res = await this.#connection.unary<TxnResponse__Output>('Txn', (c, md, o, done) =>
        c.kv.Txn(request, md, o, done),
      );
      return headerRevision(res.header);
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
  }

  /** Drops the history before `revision` (operators and tests; etcd also does it on its own). */
  async compact(revision: number): Promise<void> {
    const request = { revision, physical: true };
    await this.#connection.unary<CompactionResponse__Output>('Compact', (c, md, o, done) =>
      c.kv.Compact(request, md, o, done),
    );
  }

  watch(range: KeyRange, fromRevision: number, handlers: WatchHandlers): Watch {
    const retry = new RetrySchedule(this.#timers, this.backoff);
    const w = new EtcdWatch(this.#connection, range, fromRevision, handlers, retry, () =>
      this.#watches.delete(w),
    );
    this.#watches.add(w);
    w.open();
    return w;
  }

  async close(): Promise<void> {
    for (const w of this.#watches) w.cancel();
    this.#connection.close();
    await Promise.resolve();
  }
}

function headerRevision(header: ResponseHeader__Output | null): number {
  if (header === null) throw new Error('etcd: a response without its header');
  return header.revision;
}
