/**
 * mulberry32: a tiny seeded pseudo-random generator for randomized tests, so a failing case can be
 * replayed from its seed. Not for anything that needs unpredictability.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An element of `xs` (not empty) chosen by `random`. */
export function pickWith<T>(random: () => number, xs: readonly T[]): T {
  return xs[Math.floor(random() * xs.length)] as T;
}
