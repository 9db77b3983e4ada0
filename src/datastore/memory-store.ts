/**
 * A KeyValueStore in memory that keeps etcd's rules, for tests and benchmarks that need no etcd
 * and for trying fleet mode without one:
 * - one global revision (1 when empty), one more per transaction that changes something; every
 *   event of a transaction carries its revision, as the keys it wrote carry it as mod revision;
 * - a list is consistent at the revision it returns, its keys in etcd's order (bytes, not UTF-16);
 * - a watch delivers every event from its start revision on, in revision order, each at most once,
 *   and ends with ErrCompacted when its start revision is compacted away before it caught up;
 * - a transaction is all or nothing, refused whole when it names a key twice (a put inside
 *   another op's range included, as etcd's "duplicate key given in txn request") or has more
 *   operations than the keyspace allows (etcd's --max-txn-ops, default 128).
 *
 * The keyspace is the server: several MemoryStores (one per agent, as each has its own etcd
 * client) share one, and an outage of it (beginOutage … endOutage, as a killed etcd member) makes
 * lists and commits fail and breaks every watch, which reconnects on its store's backoff and timers
 * and resumes from its next revision, as etcd-store.ts does.
 */
import { systemTimers, type Timers } from '../util/timers.js';
import { inRange, type KeyRange } from './keys.js';
import { DEFAULT_STORE_BACKOFF, RetrySchedule, type StoreBackoff } from './retry-schedule.js';
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

/** What a watch of the keyspace is told. */
interface KeyspaceWatcher {
  /** A transaction committed these events (all of them, in any range). */
  committed(events: readonly StoreEvent[]): void;
  /** The keyspace became unreachable. */
  interrupted(): void;
}

export interface MemoryKeyspaceOptions {
  /** Operations one transaction may hold (etcd's --max-txn-ops). */
  readonly maxTxnOps?: number;
}

/** The keys, the revision and the history of one in-memory store, shared by its clients. */
export class MemoryKeyspace {
  readonly maxTxnOps: number;
  #revision = 1;
  /** History before it is gone: watches from an older revision end with ErrCompacted. */
  #compactRevision = 0;
  readonly #keys = new Map<string, { readonly value: string; readonly modRevision: number }>();
  /** Every event since the compaction, in revision order. */
  readonly #history: StoreEvent[] = [];
  readonly #watchers = new Set<KeyspaceWatcher>();
  #available = true;

  constructor(options: MemoryKeyspaceOptions = {}) {
    this.maxTxnOps = options.maxTxnOps ?? 128;
  }

  get revision(): number {
    return this.#revision;
  }

  get compactRevision(): number {
    return this.#compactRevision;
  }

  get available(): boolean {
    return this.#available;
  }

  /** The keyspace becomes unreachable: lists and commits fail, every watch breaks. */
  beginOutage(): void {
    if (!this.#available) return;
    this.#available = false;
    for (const w of [...this.#watchers]) w.interrupted();
  }

  /** Reachable again, with its data: watches reconnect on their own backoff. */
  endOutage(): void {
    this.#available = true;
  }

  /** Fails as an unreachable etcd would. */
  ensureAvailable(what: string): void {
    if (!this.#available) throw new StoreUnavailableError(`memory store ${what}: the store is unavailable`);
  }

  list(range: KeyRange): Listing {
    const kvs: KeyValue[] = [];
    for (const [key, entry] of this.#keys)
      if (inRange(key, range)) kvs.push({ key, value: entry.value, modRevision: entry.modRevision });
    kvs.sort((a, b) => compareKeys(a.key, b.key));
    return { kvs, revision: this.#revision };
  }

  commit(ops: readonly WriteOp[]): number {
    this.#check(ops);
    const revision = this.#revision + 1;
    const events: StoreEvent[] = [];
    for (const op of ops) {
      if (op.type === 'put') {
        this.#keys.set(op.key, { value: op.value, modRevision: revision });
        events.push({ type: 'put', key: op.key, value: op.value, revision });
        continue;
      }
      const range = { key: op.key, prefix: op.prefix === true };
      const deleted = [...this.#keys.keys()].filter((key) => inRange(key, range)).sort(compareKeys);
      for (const key of deleted) {
        this.#keys.delete(key);
        events.push({ type: 'delete', key, revision });
      }
    }
    // A transaction that changed nothing (deletes of missing keys) leaves the revision alone.
    if (events.length === 0) return this.#revision;
    this.#revision = revision;
    this.#history.push(...events);
    for (const w of [...this.#watchers]) w.committed(events);
    return revision;
  }

  /** Refuses a transaction etcd would refuse, before anything is written. */
  #check(ops: readonly WriteOp[]): void {
    if (ops.length > this.maxTxnOps)
      throw new Error(
        `memory store Txn: too many operations in txn request: ${ops.length} operations in one transaction exceed this store's limit of ${this.maxTxnOps}`,
      );
    const puts = new Set<string>();
    for (const op of ops) {
      if (op.type !== 'put') continue;
      if (puts.has(op.key)) throw duplicateKey(op.key);
      puts.add(op.key);
    }
    for (const op of ops) {
      if (op.type !== 'delete') continue;
      const range = { key: op.key, prefix: op.prefix === true };
      for (const key of puts) if (inRange(key, range)) throw duplicateKey(key);
    }
  }

  /** Drops the history before `revision`, as etcd's Compact. */
  compact(revision: number): void {
    if (revision > this.#revision)
      throw new Error(
        `memory store Compact: revision ${revision} is a future revision (now ${this.#revision})`,
      );
    if (revision <= this.#compactRevision)
      throw new Error(
        `memory store Compact: revision ${revision} is already compacted (${this.#compactRevision})`,
      );
    this.#compactRevision = revision;
    this.#history.splice(0, firstAtOrAfter(this.#history, revision));
  }

  /** The events in `range` from `revision` on; undefined when that history is compacted. */
  eventsFrom(revision: number, range: KeyRange): StoreEvent[] | undefined {
    if (revision < this.#compactRevision) return undefined;
    const events: StoreEvent[] = [];
    for (let i = firstAtOrAfter(this.#history, revision); i < this.#history.length; i++) {
      const e = this.#history[i] as StoreEvent;
      if (inRange(e.key, range)) events.push(e);
    }
    return events;
  }

  subscribe(w: KeyspaceWatcher): void {
    this.#watchers.add(w);
  }

  unsubscribe(w: KeyspaceWatcher): void {
    this.#watchers.delete(w);
  }
}

export interface MemoryStoreOptions {
  /** Reconnect backoff of the watches after an outage (retry-schedule.ts). */
  readonly backoff?: StoreBackoff;
  /** The clock of that backoff. */
  readonly timers?: Timers;
}

/** A client of a MemoryKeyspace (its own, unless given one to share). */
export class MemoryStore implements KeyValueStore {
  readonly #timers: Timers;
  readonly #backoff: StoreBackoff;
  readonly #watches = new Set<MemoryWatch>();
  #closed = false;

  constructor(
    readonly keyspace: MemoryKeyspace = new MemoryKeyspace(),
    options: MemoryStoreOptions = {},
  ) {
    this.#timers = options.timers ?? systemTimers;
    this.#backoff = options.backoff ?? DEFAULT_STORE_BACKOFF;
  }

  async list(range: KeyRange): Promise<Listing> {
    await Promise.resolve();
    this.#ensureUsable('Range');
    return this.keyspace.list(range);
  }

  /** One page: the listing whole. */
  async listPages(range: KeyRange, onPage: (kvs: readonly KeyValue[]) => void): Promise<number> {
    const listing = await this.list(range);
    onPage(listing.kvs);
    return listing.revision;
  }

  async commit(ops: readonly WriteOp[]): Promise<number> {
    await Promise.resolve();
    this.#ensureUsable('Txn');
    return this.keyspace.commit(ops);
  }

  /** Drops the history before `revision` (tests; EtcdStore.compact's counterpart). */
  async compact(revision: number): Promise<void> {
    await Promise.resolve();
    this.#ensureUsable('Compact');
    this.keyspace.compact(revision);
  }

  watch(range: KeyRange, fromRevision: number, handlers: WatchHandlers): Watch {
    const w = new MemoryWatch(
      this.keyspace,
      range,
      fromRevision,
      handlers,
      new RetrySchedule(this.#timers, this.#backoff),
      () => this.#watches.delete(w),
    );
    this.#watches.add(w);
    w.open();
    return w;
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const w of this.#watches) w.cancel();
    await Promise.resolve();
  }

  #ensureUsable(what: string): void {
    if (this.#closed) throw new StoreUnavailableError('memory store: the store is closed');
    this.keyspace.ensureAvailable(what);
  }
}

/**
 * A watch on the keyspace. Like an etcd watcher it is either catching up (reading the history
 * from its next revision, which compaction can take away) or synced (handed each transaction's
 * events as it commits, which compaction cannot). Events reach the handlers on a later
 * microtask, never inside the commit that made them.
 */
class MemoryWatch implements Watch, KeyspaceWatcher {
  nextRevision: number;
  /** Synced: subscribed to the keyspace's commits. */
  #synced = false;
  /** Events committed since the last delivery, for this range. */
  #pending: StoreEvent[] = [];
  #deliveryQueued = false;
  #done = false;

  readonly #keyspace: MemoryKeyspace;
  readonly #range: KeyRange;
  readonly #handlers: WatchHandlers;
  readonly #retry: RetrySchedule;
  readonly #onClosed: () => void;

  constructor(
    keyspace: MemoryKeyspace,
    range: KeyRange,
    fromRevision: number,
    handlers: WatchHandlers,
    retry: RetrySchedule,
    onClosed: () => void,
  ) {
    this.#keyspace = keyspace;
    this.#range = range;
    this.#handlers = handlers;
    this.#retry = retry;
    this.#onClosed = onClosed;
    this.nextRevision = fromRevision;
  }

  /** Connects on a later microtask, as etcd's "created" response comes later. */
  open(): void {
    queueMicrotask(() => this.#connect());
  }

  #connect(): void {
    if (this.#done) return;
    if (!this.#keyspace.available) {
      this.#broken();
      return;
    }
    const backlog = this.#keyspace.eventsFrom(this.nextRevision, this.#range);
    if (backlog === undefined) {
      this.cancel();
      this.#handlers.onEnd(new ErrCompacted(this.nextRevision, this.#keyspace.compactRevision));
      return;
    }
    this.#synced = true;
    this.#keyspace.subscribe(this);
    this.#retry.succeeded();
    this.#handlers.onConnect?.();
    this.#queue(backlog);
  }

  committed(events: readonly StoreEvent[]): void {
    this.#queue(events.filter((e) => inRange(e.key, this.#range)));
  }

  interrupted(): void {
    this.#broken();
  }

  #queue(events: readonly StoreEvent[]): void {
    if (events.length === 0) return;
    this.#pending.push(...events);
    if (this.#deliveryQueued) return;
    this.#deliveryQueued = true;
    queueMicrotask(() => this.#deliver());
  }

  #deliver(): void {
    this.#deliveryQueued = false;
    const events = this.#pending;
    this.#pending = [];
    if (this.#done || !this.#synced || events.length === 0) return;
    this.nextRevision = (events[events.length - 1] as StoreEvent).revision + 1;
    this.#handlers.onEvents(events);
  }

  /** The keyspace is unreachable: what was not delivered is read again from nextRevision on reconnect. */
  #broken(): void {
    this.#synced = false;
    this.#pending = [];
    this.#keyspace.unsubscribe(this);
    this.#handlers.onDisconnect?.(new StoreUnavailableError('memory store: the store is unavailable'));
    this.#retry.afterFailure(() => this.#connect());
  }

  cancel(): void {
    if (this.#done) return;
    this.#done = true;
    this.#synced = false;
    this.#pending = [];
    this.#keyspace.unsubscribe(this);
    this.#retry.cancel();
    this.#onClosed();
  }
}

function duplicateKey(key: string): Error {
  return new Error(`memory store Txn: duplicate key given in txn request: ${key}`);
}

/** etcd orders keys by their bytes; UTF-16 order differs beyond the BMP. */
function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** The index of the first event at or after `revision` in revision-ordered `events`. */
function firstAtOrAfter(events: readonly StoreEvent[], revision: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((events[mid] as StoreEvent).revision < revision) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
