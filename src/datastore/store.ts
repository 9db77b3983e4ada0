/**
 * What vppnet needs of a distributed key-value store: a consistent list with its revision, a
 * watch from a revision on with no event lost, and an all-or-nothing write. etcd-store.ts is the
 * etcd v3 implementation, memory-store.ts one in memory with etcd's rules (tests, benchmarks);
 * store.test.ts holds both to the same contract. The view (view.ts) and the CLI see only this.
 */
import type { KeyRange } from './keys.js';

export interface KeyValue {
  readonly key: string;
  readonly value: string;
  readonly modRevision: number;
}

export interface Listing {
  readonly kvs: readonly KeyValue[];
  /** The store's revision the listing is consistent at: watch from revision + 1. */
  readonly revision: number;
}

export type StoreEvent =
  | { readonly type: 'put'; readonly key: string; readonly value: string; readonly revision: number }
  | { readonly type: 'delete'; readonly key: string; readonly revision: number };

export type WriteOp =
  | { readonly type: 'put'; readonly key: string; readonly value: string }
  | { readonly type: 'delete'; readonly key: string; readonly prefix?: boolean };

/**
 * The revision a watch asked for is compacted away: the events in between are gone. The caller
 * re-lists and diffs its view against the listing (k8s' "too old resource version").
 */
export class ErrCompacted extends Error {
  readonly code = 'VPPNET_ERR_COMPACTED';
  constructor(
    readonly requestedRevision: number,
    readonly compactRevision: number,
  ) {
    super(
      `revision ${requestedRevision} is compacted (the store keeps history from ${compactRevision} on): re-list`,
    );
    this.name = 'ErrCompacted';
  }
}

/**
 * The store's history is not the one the watch followed: its revision is behind the events the
 * watch delivered (etcd restored from a backup), or it is another cluster. etcd would accept the
 * watch and wait, silently, until its revision caught up, then deliver events of another history.
 * The caller re-lists trusting none of the revisions it holds: the same key may have another
 * value at the same mod revision.
 */
export class ErrHistoryReplaced extends Error {
  readonly code = 'VPPNET_ERR_HISTORY_REPLACED';
  constructor(reason: string) {
    super(`the store's history was replaced (${reason}): re-list`);
    this.name = 'ErrHistoryReplaced';
  }
}

/** The store could not be reached or answered with an error; the operation may be retried. */
export class StoreUnavailableError extends Error {
  readonly code = 'VPPNET_ERR_STORE_UNAVAILABLE';
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

export interface WatchHandlers {
  /** Events in revision order, each batch at most once. */
  readonly onEvents: (events: readonly StoreEvent[]) => void;
  /** The stream broke and is being re-established from the next revision (with backoff). */
  readonly onDisconnect?: (err: Error) => void;
  /** The stream is (again) established. */
  readonly onConnect?: () => void;
  /** The watch ended for good: ErrCompacted, ErrHistoryReplaced, or another cancellation by the store. */
  readonly onEnd: (err: Error) => void;
}

export interface Watch {
  /** The next revision this watch will deliver. */
  readonly nextRevision: number;
  cancel(): void;
}

export interface KeyValueStore {
  list(range: KeyRange): Promise<Listing>;
  /**
   * The same listing a page at a time: `onPage` gets each page's key-values (in key order) as
   * it arrives, and the store may ask for the next page before `onPage` returns. Resolves with
   * the revision the whole listing is consistent at; a failure after some pages leaves those
   * delivered. A reader that keeps only what it parses out of each page then holds no listing
   * (an agent's cold start lists 100k endpoints).
   */
  listPages(range: KeyRange, onPage: (kvs: readonly KeyValue[]) => void): Promise<number>;
  /** Watches `range` from `fromRevision` on; reconnects by itself, never skipping a revision. */
  watch(range: KeyRange, fromRevision: number, handlers: WatchHandlers): Watch;
  /** All the operations in one transaction; returns the revision it committed at. */
  commit(ops: readonly WriteOp[]): Promise<number>;
  close(): Promise<void>;
}
