/**
 * Writes a fleet's records into etcd quickly: large transactions (the benchmark's etcd is
 * started with a raised --max-txn-ops and --max-request-bytes), several in flight.
 */
import type { KeyValueStore } from '../../src/datastore/store.js';
import type { Record } from './layout.js';

export interface LoadOptions {
  /** Records per transaction. */
  readonly batch: number;
  /** Transactions in flight. */
  readonly inFlight: number;
  /** Called after each transaction with the records written so far. */
  readonly onProgress?: (written: number) => void;
}

/** Writes every record (puts, in order per transaction) and returns how many it wrote. */
export async function loadRecords(
  store: KeyValueStore,
  records: Iterable<Record>,
  opts: LoadOptions,
): Promise<number> {
  if (!(opts.batch >= 1) || !(opts.inFlight >= 1))
    throw new Error(`loadRecords: batch and inFlight must be ≥ 1, got ${opts.batch} and ${opts.inFlight}`);
  let written = 0;
  const running = new Set<Promise<void>>();
  let failure: Error | undefined;
  const send = (ops: { type: 'put'; key: string; value: string }[]): void => {
    const p = store.commit(ops).then(
      () => {
        written += ops.length;
        opts.onProgress?.(written);
      },
      (err: unknown) => {
        failure ??= err instanceof Error ? err : new Error(String(err));
      },
    );
    const tracked = p.finally(() => running.delete(tracked));
    running.add(tracked);
  };
  let ops: { type: 'put'; key: string; value: string }[] = [];
  for (const r of records) {
    ops.push({ type: 'put', key: r.key, value: r.value });
    if (ops.length < opts.batch) continue;
    send(ops);
    ops = [];
    while (running.size >= opts.inFlight) await Promise.race(running);
    if (failure !== undefined) break;
  }
  if (ops.length && failure === undefined) send(ops);
  await Promise.all(running);
  if (failure !== undefined) throw failure;
  return written;
}
