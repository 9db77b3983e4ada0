/**
 * One watch of a key range on etcd: a Watch stream of its own, re-opened after a break from the
 * next revision it has not delivered, with the store's backoff.
 *
 * The revision to resume from is the last event's mod_revision + 1, as etcd's Go clientv3 takes
 * it, never a response header's revision: etcd puts the store's current revision there, also in
 * the "created" response and in each batch while a watcher still catches up, so a stream that
 * broke during the catch-up would skip the events not yet delivered. A header revision counts only
 * in a progress notification, which etcd sends to watchers that have caught up.
 *
 * A header also tells when the store is no longer the one the watch followed: a revision behind
 * what was delivered (etcd restored from a backup), or another cluster id. etcd accepts a watch
 * from a revision it has not reached and waits for it in silence, and another cluster's revisions
 * are another history, so the watch ends with ErrHistoryReplaced and the caller re-lists
 * (client-go's reflector re-lists on any watch error it cannot resume from).
 */
import { status } from '@grpc/grpc-js';
import { rangeEnd, type KeyRange } from '../keys.js';
import type { RetrySchedule } from '../retry-schedule.js';
import {
  ErrCompacted,
  ErrHistoryReplaced,
  StoreUnavailableError,
  type StoreEvent,
  type Watch,
  type WatchHandlers,
} from '../store.js';
import type { EtcdConnection, WatchStream } from './connection.js';
import type { WatchResponseMessage } from './watch-response.js';

/**
 * Cancellations that say the watch's auth token is no good (a restarted member forgets its simple
 * tokens; they expire after --auth-token-ttl), not that the watch may not be: etcd answers a new
 * watch with a stale token by cancelling it, not by failing the stream. etcd's clientv3 retries
 * these two (shouldRetryWatch) with a new token, and so does this.
 */
const TOKEN_REJECTED = /etcdserver: (invalid auth token|revision of auth store is old)/;

export class EtcdWatch implements Watch {
  nextRevision: number;
  #stream: WatchStream | undefined;
  #done = false;
  /** The cluster of the first response; 0 until then. */
  #clusterId = 0;

  readonly #connection: EtcdConnection;
  readonly #range: KeyRange;
  readonly #handlers: WatchHandlers;
  readonly #retry: RetrySchedule;
  readonly #onClosed: () => void;

  constructor(
    connection: EtcdConnection,
    range: KeyRange,
    fromRevision: number,
    handlers: WatchHandlers,
    retry: RetrySchedule,
    onClosed: () => void,
  ) {
    this.#connection = connection;
    this.#range = range;
    this.#handlers = handlers;
    this.#retry = retry;
    this.#onClosed = onClosed;
    this.nextRevision = fromRevision;
  }

  open(): void {
    if (this.#done) return;
    this.#connection.watchStream().then(
      (stream) => this.#start(stream),
      (err: unknown) => this.#broken(undefined, err instanceof Error ? err : new Error(String(err))),
    );
  }

  #start(stream: WatchStream): void {
    if (this.#done) {
      // Cancelled while the stream was being opened: its cancellation is its only error.
      stream.on('error', () => undefined);
      stream.cancel();
      return;
    }
    this.#stream = stream;
    stream.on('data', (res: WatchResponseMessage) => this.#onResponse(stream, res));
    stream.on('error', (err: Error) => this.#broken(stream, err));
    stream.on('end', () => this.#broken(stream, new StoreUnavailableError('etcd closed the watch stream')));
    const end = rangeEnd(this.#range);
    stream.write({
      create_request: {
        key: Buffer.from(this.#range.key),
        ...(end && { range_end: end }),
        start_revision: this.nextRevision,
        progress_notify: true,
      },
    });
  }

  #onResponse(stream: WatchStream, res: WatchResponseMessage): void {
    if (this.#done || stream !== this.#stream) return;
    if (res.canceled) {
      const compact = res.compactRevision;
      if (compact === 0 && TOKEN_REJECTED.test(res.cancelReason)) {
        // A break like any other, from the same next revision; the token is fetched again.
        const err = new StoreUnavailableError(`etcd refused the watch's token: ${res.cancelReason}`, {
          cause: { code: status.UNAUTHENTICATED },
        });
        this.#broken(stream, err);
        return;
      }
      this.#finish(
        compact > 0
          ? new ErrCompacted(this.nextRevision, compact)
          : new Error(`etcd canceled the watch: ${res.cancelReason || 'no reason given'}`),
      );
      return;
    }
    const replaced = this.#historyReplaced(res);
    if (replaced !== undefined) {
      this.#finish(new ErrHistoryReplaced(replaced));
      return;
    }
    if (res.created) {
      this.#retry.succeeded();
      this.#handlers.onConnect?.();
      return;
    }
    if (res.events.length === 0) {
      // A progress notification: everything up to the header's revision is delivered.
      this.nextRevision = Math.max(this.nextRevision, res.revision + 1);
      return;
    }
    const events = res.events;
    this.nextRevision = (events[events.length - 1] as StoreEvent).revision + 1;
    this.#handlers.onEvents(events);
  }

  /** Why the store answering is not the history this watch delivered, if it is not. */
  #historyReplaced(res: WatchResponseMessage): string | undefined {
    if (res.clusterId !== 0) {
      if (this.#clusterId === 0) this.#clusterId = res.clusterId;
      else if (res.clusterId !== this.#clusterId)
        return `etcd answers as cluster ${res.clusterId.toString(16)}, the watch followed ${this.#clusterId.toString(16)}`;
    }
    // Every revision before nextRevision exists in the history the watch followed; a store that
    // has not reached it lost them. (A member lagging behind the one that listed would say the
    // same for a moment: the re-list, linearizable, waits for it.)
    if (res.revision < this.nextRevision - 1)
      return `etcd is at revision ${res.revision}, the watch delivered up to ${this.nextRevision - 1}`;
    return undefined;
  }

  #broken(stream: WatchStream | undefined, err: Error): void {
    if (this.#done || (stream !== undefined && stream !== this.#stream)) return;
    this.#stream = undefined;
    stream?.cancel();
    this.#connection.noteFailure(err);
    this.#handlers.onDisconnect?.(err);
    this.#retry.afterFailure(() => this.open());
  }

  #finish(err: Error): void {
    this.cancel();
    this.#handlers.onEnd(err);
  }

  cancel(): void {
    if (this.#done) return;
    this.#done = true;
    this.#retry.cancel();
    const s = this.#stream;
    this.#stream = undefined;
    s?.end();
    s?.cancel();
    this.#onClosed();
  }
}
