/**
 * One node's view of the store, fed by list + watch over exactly its scope: its own ports, the
 * node records, and for each VPC it has ports in, that VPC's record and endpoints. The VPC
 * watches follow the ports: a port's first VPC adds them, its last port's removal drops them and
 * their records. A node in 10 VPCs holds those 10 VPCs' endpoints, never the fleet's.
 *
 * Each range lists, then watches from the listing's revision + 1 (no event lost between them).
 * A compaction (ErrCompacted) re-lists the range and applies the difference; nothing restarts.
 * An invalid value is rejected with its key and reason, the last good value stays, and it is
 * counted. An unreachable store changes nothing here: the view keeps its records and says since
 * when it is stale (client-go's reflector, style.md).
 *
 * Each batch (a listing, a watch response, and the scope changes they cause) is handed to the
 * owner with the records it changed, old and new, so that the owner's work per batch is in the
 * changed keys, not in the size of the view (fleet-source.ts).
 */
import { systemTimers, type Timers } from '../util/timers.js';
import { deriveAgentConfig, portVpcs, type Derivation, type NodeView } from './derive.js';
import { EndpointTable, NodeNames } from './endpoint-table.js';
import { inRange, type KeyRange, type KeySchema } from './keys.js';
import {
  formatProblem,
  parseRecord,
  type DatastoreRecord,
  type NodeRecord,
  type PortRecord,
  type RecordProblem,
  type VpcRecord,
} from './records.js';
import { RetrySchedule, type StoreBackoff } from './retry-schedule.js';
import {
  ErrCompacted,
  ErrHistoryReplaced,
  type KeyValueStore,
  type StoreEvent,
  type Watch,
} from './store.js';

export interface ViewHealth {
  /** Every range of the scope has been listed at least once. */
  readonly synced: boolean;
  /** Some range cannot reach the store: the view is the last one it saw. */
  readonly stale: boolean;
  readonly staleSince: Date | undefined;
  readonly lastError: string | undefined;
}

/** One key's record as a batch changed it. A rejected value changes nothing: its last good record stays. */
export type RecordChange<R extends DatastoreRecord> =
  | {
      readonly type: 'put';
      readonly kind: R['kind'];
      readonly key: string;
      readonly old: R | undefined;
      readonly new: R;
    }
  | {
      readonly type: 'delete';
      readonly kind: R['kind'];
      readonly key: string;
      readonly old: R;
      readonly new: undefined;
    };

/**
 * An endpoint key as a batch changed it: which node hosts it before and after (undefined: no
 * record). Not the records: a cold start changes 100k endpoints in one batch, and a record per
 * change (with its prefix, held until the batch is handed over) was most of what the listing
 * promoted to the old generation; what follows a change needs the node and the VPC alone.
 */
export interface EndpointChange {
  readonly type: 'put' | 'delete';
  readonly kind: 'endpoint';
  readonly key: string;
  readonly vpc: string;
  readonly oldNode: string | undefined;
  readonly newNode: string | undefined;
}

export type ViewChange =
  RecordChange<NodeRecord> | RecordChange<VpcRecord> | RecordChange<PortRecord> | EndpointChange;

export interface ViewOptions {
  /**
   * Called once per batch that changed the view, with the records it changed in the order it
   * changed them (a key changed twice in a batch appears twice). The maps already hold the new
   * state. May be empty when only a rejected value went away.
   */
  readonly onChange?: (changes: readonly ViewChange[]) => void;
  /** Called for each rejected value; the metric and the log line hang here. */
  readonly onRejected?: (key: string, problems: readonly RecordProblem[]) => void;
  /** How long a range whose list failed waits before listing again (retry-schedule.ts). */
  readonly backoff?: StoreBackoff;
  /** The clock of those retries and of `staleSince`. */
  readonly timers?: Timers;
}

interface Subscription {
  readonly range: KeyRange;
  listed: boolean;
  down: boolean;
  cancelled: boolean;
  watch: Watch | undefined;
  /** Its lists after a failure. */
  readonly retry: RetrySchedule;
}

/** The raw value the view keeps of other nodes' records: none (see put). */
const REMOTE_NODE_RAW: Readonly<Record<string, unknown>> = Object.freeze({});

export class DatastoreView implements NodeView {
  readonly nodes = new Map<string, NodeRecord>();
  readonly vpcs = new Map<string, VpcRecord>();
  readonly ports = new Map<string, PortRecord>();
  /** VPC → its endpoints, in columns (endpoint-table.ts): the bulk of a large node's view. */
  readonly endpoints = new Map<string, EndpointTable>();
  /** Key → why its current value is rejected (its last good value, if any, is what the view holds). */
  readonly rejected = new Map<string, string>();
  /** Values rejected since start: the metric. */
  rejectedTotal = 0;

  /**
   * The mod revision of each key the view has seen whose value is rejected or is not an
   * endpoint's: re-lists skip the unchanged (etcd gives a key a new mod revision with each
   * write). An endpoint's good value has its revision in its table, not an entry here (100k
   * entries were 3.5 MiB). A number, not the value's text: 4-6 MiB of texts for 100k endpoints.
   */
  readonly #revisions = new Map<string, number>();
  /** The node names of the endpoint tables. */
  readonly #nodeNames = new NodeNames();
  readonly #subs = new Map<string, Subscription>();
  #staleSince: Date | undefined;
  #lastError: string | undefined;
  #changed = false;
  /** The records changed by the batch being applied. */
  #batch: ViewChange[] = [];
  /** A port changed in this batch: the VPC scope may have to follow. */
  #portsChanged = false;
  readonly #syncWaiters: (() => void)[] = [];
  readonly #timers: Timers;

  readonly #store: KeyValueStore;
  readonly #options: ViewOptions;

  constructor(
    store: KeyValueStore,
    readonly schema: KeySchema,
    readonly nodeName: string,
    options: ViewOptions = {},
  ) {
    this.#store = store;
    this.#options = options;
    this.#timers = options.timers ?? systemTimers;
  }

  start(): void {
    this.#subscribe(this.schema.nodesRange);
    this.#subscribe(this.schema.portsRange(this.nodeName));
  }

  stop(): void {
    for (const sub of this.#subs.values()) this.#unsubscribe(sub);
  }

  /** The ranges watched now (for tests and status). */
  get scope(): string[] {
    return [...this.#subs.keys()].sort();
  }

  derive(): Derivation {
    return deriveAgentConfig(this.schema, this.nodeName, this);
  }

  /** The mod revision of the value the view holds (or rejected) for a key. */
  revisionOf(key: string): number | undefined {
    const revision = this.#revisions.get(key);
    if (revision !== undefined) return revision;
    return this.#tableOf(key)?.revisionOf(key);
  }

  /** The endpoint table of the VPC an endpoint key (or an endpoints range's key) names, if held. */
  #tableOf(key: string): EndpointTable | undefined {
    const vpc = this.schema.endpointVpcOf(key);
    return vpc === undefined ? undefined : this.endpoints.get(vpc);
  }

  /** Every key the view holds a value (or a rejection) of, in a range. */
  #keysIn(range: KeyRange): string[] {
    const keys: string[] = [];
    for (const key of this.#revisions.keys()) if (inRange(key, range)) keys.push(key);
    // Endpoint keys are in their VPC's table, and an endpoints range is one VPC's.
    const table = this.#tableOf(range.key);
    if (table) for (const key of table.keys()) if (inRange(key, range)) keys.push(key);
    return keys;
  }

  health(): ViewHealth {
    const subs = [...this.#subs.values()];
    return {
      synced: subs.every((s) => s.listed),
      stale: this.#staleSince !== undefined,
      staleSince: this.#staleSince,
      lastError: this.#lastError,
    };
  }

  /** Resolves once every range of the current scope is listed. */
  whenSynced(): Promise<void> {
    if (this.health().synced) return Promise.resolve();
    return new Promise((resolve) => this.#syncWaiters.push(resolve));
  }

  #subscribe(range: KeyRange): void {
    if (this.#subs.has(range.key)) return;
    const sub: Subscription = {
      range,
      listed: false,
      down: false,
      cancelled: false,
      watch: undefined,
      retry: new RetrySchedule(this.#timers, this.#options.backoff),
    };
    this.#subs.set(range.key, sub);
    void this.#listAndWatch(sub);
  }

  #unsubscribe(sub: Subscription): void {
    sub.cancelled = true;
    sub.retry.cancel();
    sub.watch?.cancel();
    this.#subs.delete(sub.range.key);
    this.#updateStale();
  }

  /** `trustRevisions` false: the store's history was replaced, a held mod revision proves nothing. */
  async #listAndWatch(sub: Subscription, trustRevisions = true): Promise<void> {
    let revision;
    try {
      revision = await this.#list(sub, trustRevisions);
    } catch (err) {
      if (sub.cancelled) return;
      this.#markDown(sub, err as Error);
      sub.retry.afterFailure(() => void this.#listAndWatch(sub, trustRevisions));
      return;
    }
    if (sub.cancelled) return;
    sub.retry.succeeded();
    this.#markUp(sub);
    sub.listed = true;
    this.#afterBatch();
    sub.watch = this.#store.watch(sub.range, revision + 1, {
      onEvents: (events) => this.#onEvents(sub, events),
      onDisconnect: (err) => this.#markDown(sub, err),
      onConnect: () => this.#markUp(sub),
      onEnd: (err) => {
        if (sub.cancelled) return;
        sub.watch = undefined;
        if (!(err instanceof ErrCompacted)) this.#markDown(sub, err);
        else this.#lastError = err.message;
        // Compacted, replaced or canceled: list again and apply the difference.
        void this.#listAndWatch(sub, !(err instanceof ErrHistoryReplaced));
      },
    });
  }

  /**
   * Lists the range into the view; resolves with the revision to watch from. A first listing
   * puts each page as it comes, so that no listing of (maybe 100k) values is held, and copied
   * through the young generation, before it is parsed: the range is not listed until the last
   * page is in, so nothing is derived from part of it, and one that fails after some pages is
   * listed again, as a relist. A relist is applied whole, after its last page: keys the view holds
   * but the listing lacks were deleted meanwhile, and the view never mixes two listings.
   */
  async #list(sub: Subscription, trustRevisions: boolean): Promise<number> {
    const held = this.#keysIn(sub.range);
    if (held.length === 0)
      return this.#store.listPages(sub.range, (kvs) => {
        if (sub.cancelled) return;
        for (const kv of kvs) this.#put(kv.key, kv.value, kv.modRevision);
      });
    const listing = await this.#store.list(sub.range);
    if (sub.cancelled) return listing.revision;
    const listed = new Set(listing.kvs.map((kv) => kv.key));
    for (const key of held) if (!listed.has(key)) this.#remove(key);
    for (const kv of listing.kvs) this.#put(kv.key, kv.value, kv.modRevision, trustRevisions);
    return listing.revision;
  }

  #onEvents(sub: Subscription, events: readonly StoreEvent[]): void {
    if (sub.cancelled) return;
    for (const e of events) {
      if (e.type === 'put') this.#put(e.key, e.value, e.revision);
      else this.#remove(e.key);
    }
    this.#afterBatch();
  }

  #put(key: string, text: string, revision: number, trustRevision = true): void {
    // revisionOf, with the endpoint table it finds kept for the record: a cold start puts 100k.
    const held = this.#revisions.get(key);
    if (held === revision && trustRevision) return;
    const heldTable = held === undefined ? this.#tableOf(key) : undefined;
    if (heldTable !== undefined && heldTable.revisionOf(key) === revision && trustRevision) return;
    const record = parseRecord(this.schema, key, text);
    if (Array.isArray(record)) {
      // Here, not in the endpoint's table: that keeps the last good value's.
      this.#revisions.set(key, revision);
      this.rejected.set(key, record.map((p) => `${p.path}: ${p.message}`).join('; '));
      this.rejectedTotal++;
      this.#options.onRejected?.(key, record);
      return;
    }
    if (this.rejected.size > 0) this.rejected.delete(key);
    if (record.kind !== 'endpoint') this.#revisions.set(key, revision);
    else if (held !== undefined) this.#revisions.delete(key);
    this.#changed = true;
    switch (record.kind) {
      case 'node': {
        // Of another node only its name, locator and BSID prefix are ever read (its SIDs, node-lanes.ts): a fleet's 10k node
        // records kept whole were ~5 MiB of an agent's heap.
        const kept = record.name === this.nodeName ? record : { ...record, raw: REMOTE_NODE_RAW };
        this.#batch.push({ type: 'put', kind: 'node', key, old: this.nodes.get(record.name), new: kept });
        this.nodes.set(record.name, kept);
        break;
      }
      case 'vpc':
        this.#batch.push({ type: 'put', kind: 'vpc', key, old: this.vpcs.get(record.name), new: record });
        this.vpcs.set(record.name, record);
        break;
      case 'port':
        if (record.node !== this.nodeName) break;
        this.#batch.push({ type: 'put', kind: 'port', key, old: this.ports.get(record.name), new: record });
        this.ports.set(record.name, record);
        this.#portsChanged = true;
        break;
      case 'endpoint': {
        // The key's VPC is the record's: its table, if it has one, was found above.
        let m = heldTable ?? this.endpoints.get(record.vpc);
        if (!m) {
          m = new EndpointTable(record.vpc, this.schema.endpointsRange(record.vpc).key, this.#nodeNames);
          this.endpoints.set(record.vpc, m);
        }
        const oldNode = m.replace(key, record, revision);
        this.#batch.push({ type: 'put', kind: 'endpoint', key, vpc: m.vpc, oldNode, newNode: m.nodeOf(key) });
        break;
      }
    }
  }

  #remove(key: string): void {
    const inTable = this.#tableOf(key)?.has(key) === true;
    if (!this.#revisions.delete(key) && !inTable) return;
    this.rejected.delete(key);
    const k = this.schema.parse(key);
    if ('error' in k) return;
    this.#changed = true;
    // A key whose values were all rejected had no record: nothing to report but the change.
    if (k.kind === 'node') {
      const old = this.nodes.get(k.node);
      if (old && this.nodes.delete(k.node))
        this.#batch.push({ type: 'delete', kind: 'node', key, old, new: undefined });
    } else if (k.kind === 'vpc') {
      const old = this.vpcs.get(k.vpc);
      if (old && this.vpcs.delete(k.vpc))
        this.#batch.push({ type: 'delete', kind: 'vpc', key, old, new: undefined });
    } else if (k.kind === 'port') {
      const old = k.node === this.nodeName ? this.ports.get(k.port) : undefined;
      if (old && this.ports.delete(k.port)) {
        this.#batch.push({ type: 'delete', kind: 'port', key, old, new: undefined });
        this.#portsChanged = true;
      }
    } else {
      const m = this.endpoints.get(k.vpc);
      const oldNode = m?.nodeOf(key);
      if (oldNode !== undefined && m?.delete(key))
        this.#batch.push({ type: 'delete', kind: 'endpoint', key, vpc: m.vpc, oldNode, newNode: undefined });
    }
  }

  /**
   * Follows the ports with the VPC watches, then tells the owner once. Only a batch that changed
   * a port can change the scope: the others cost nothing here beyond their keys.
   */
  #afterBatch(): void {
    if (this.#portsChanged) {
      this.#portsChanged = false;
      const wanted = portVpcs(this.ports.values());
      for (const vpc of wanted) {
        this.#subscribe(this.schema.vpcRange(vpc));
        this.#subscribe(this.schema.endpointsRange(vpc));
      }
      for (const vpc of new Set([...this.vpcs.keys(), ...this.endpoints.keys()])) {
        if (wanted.has(vpc)) continue;
        for (const range of [this.schema.vpcRange(vpc), this.schema.endpointsRange(vpc)]) {
          const sub = this.#subs.get(range.key);
          if (sub) this.#unsubscribe(sub);
          for (const key of this.#keysIn(range)) this.#remove(key);
        }
        this.vpcs.delete(vpc);
        this.endpoints.delete(vpc);
      }
    }
    if (this.health().synced) for (const resolve of this.#syncWaiters.splice(0)) resolve();
    if (this.#changed) {
      this.#changed = false;
      const changes = this.#batch;
      this.#batch = [];
      this.#options.onChange?.(changes);
    }
  }

  #markDown(sub: Subscription, err: Error): void {
    sub.down = true;
    this.#lastError = err.message;
    this.#staleSince ??= new Date(this.#timers.now());
  }

  #markUp(sub: Subscription): void {
    sub.down = false;
    this.#updateStale();
  }

  #updateStale(): void {
    if ([...this.#subs.values()].every((s) => !s.down)) this.#staleSince = undefined;
  }
}

export function describeRejection(key: string, problems: readonly RecordProblem[]): string {
  return `rejected ${key}, keeping its last good value:\n${problems.map(formatProblem).join('\n')}`;
}
