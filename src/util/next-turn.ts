/**
 * Long walks that must not hold the event loop (fleet mode's drift check over 100k routes) await
 * this every few thousand steps: a macrotask, so timers, sockets and the route deltas due run in
 * between, which awaiting a resolved promise would not let them do.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
