import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LatencyWindow, MAX_WINDOW, MIN_WINDOW } from './window.js';

/**
 * A VPP on a simulated clock: it answers one request each `serviceMs`, in order, and a reply
 * reaches the client `delayMs` after VPP sent it (half a round trip each way). The client keeps
 * `window.size` requests in flight. Returns the window after `requests` replies.
 */
function simulate(
  window: LatencyWindow,
  clock: { t: number },
  requests: number,
  serviceMs: number,
  delayMs: number,
): number[] {
  const sizes: number[] = [];
  const inFlight: { sentAt: number; repliesAt: number }[] = [];
  let vppFreeAt = 0;
  const send = (): void => {
    const sentAt = window.sent();
    const arrives = sentAt + delayMs / 2;
    vppFreeAt = Math.max(vppFreeAt, arrives) + serviceMs;
    inFlight.push({ sentAt, repliesAt: vppFreeAt + delayMs / 2 });
  };
  for (let n = 0; n < requests; n++) {
    while (inFlight.length < window.size) send();
    const next = inFlight.shift() as { sentAt: number; repliesAt: number };
    clock.t = Math.max(clock.t, next.repliesAt);
    window.replied(next.sentAt);
    sizes.push(window.size);
  }
  return sizes;
}

describe('the executor window sized from measured latency', () => {
  it('starts at its minimum and doubles each epoch while VPP keeps up', () => {
    const clock = { t: 0 };
    const w = new LatencyWindow({ min: 4, max: 1 << 20, now: () => clock.t });
    assert.equal(w.size, 4);
    // VPP answers 1,000 requests per ms, the round trip is 1 ms: 1,000 in flight keep it busy.
    const sizes = simulate(w, clock, 10_000, 0.001, 1);
    assert.deepEqual([...new Set(sizes)].slice(0, 5), [4, 8, 16, 32, 64], 'doubles from the start');
    const settled = sizes[sizes.length - 1] as number;
    assert.ok(settled >= 1900 && settled <= 2100, `settles near 2 x 1,000: ${settled}`);
  });

  it('settles at twice VPP rate times the round trip once VPP is the limit', () => {
    const clock = { t: 0 };
    const w = new LatencyWindow({ min: 4, max: 1 << 20, now: () => clock.t });
    // 100 requests per ms, 2 ms round trip: 200 in flight keep VPP busy; the window is 400.
    const sizes = simulate(w, clock, 20_000, 0.01, 2);
    const last = sizes.slice(-2000);
    for (const s of last) assert.ok(s >= 380 && s <= 420, `window ${s}`);
    assert.ok(Math.abs(w.roundTripMs - 2.01) < 1e-9, `round trip ${w.roundTripMs}`);
  });

  it('shrinks when VPP slows down, and stays within its bounds', () => {
    const clock = { t: 0 };
    const w = new LatencyWindow({ min: 8, max: 256, now: () => clock.t });
    const fast = simulate(w, clock, 10_000, 0.001, 1);
    assert.equal(fast[fast.length - 1], 256, 'capped at its maximum');
    const slow = simulate(w, clock, 5_000, 0.1, 1);
    assert.ok((slow[slow.length - 1] as number) <= 32, `shrunk to ${slow[slow.length - 1]}`);
    assert.ok([...fast, ...slow].every((s) => s >= 8 && s <= 256));
  });

  it('defaults to a minimum that spreads the per-turn cost', () => {
    assert.equal(new LatencyWindow().size, MIN_WINDOW);
  });

  it('keeps at most MAX_WINDOW in flight by default, however fast the replies come', () => {
    const clock = { t: 0 };
    const w = new LatencyWindow({ now: () => clock.t });
    // 1,000 requests per ms and a 10 ms round trip would want 20,000 in flight.
    const sizes = simulate(w, clock, 50_000, 0.001, 10);
    assert.equal(Math.max(...sizes), MAX_WINDOW);
    assert.equal(sizes[sizes.length - 1], MAX_WINDOW);
  });
});
