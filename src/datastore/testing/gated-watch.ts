/**
 * A watch that does not start until `gate` resolves: tests hold one range's watch back while
 * writes pile up, then let it catch up. Until then its nextRevision is where it will start.
 */
import type { KeyRange } from '../keys.js';
import type { KeyValueStore, Watch, WatchHandlers } from '../store.js';

export function gatedWatch(
  store: KeyValueStore,
  range: KeyRange,
  from: number,
  handlers: WatchHandlers,
  gate: Promise<unknown>,
): Watch {
  let w: Watch | undefined;
  let cancelled = false;
  void gate.then(() => {
    if (!cancelled) w = store.watch(range, from, handlers);
  });
  return {
    get nextRevision() {
      return w?.nextRevision ?? from;
    },
    cancel: () => {
      cancelled = true;
      w?.cancel();
    },
  };
}
