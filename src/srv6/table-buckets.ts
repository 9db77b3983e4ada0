/**
 * The first step of the IPv4 steering bulk kind's key order (steering-resources.ts: tables as
 * their key text sorts): a counting sort of the entries by their table's rank. Each table's rank is looked up once per run of one table
 * (entries come by VPC).
 */
export interface TableBuckets {
  /** How many distinct tables (buckets). */
  readonly count: number;
  /** Each entry's bucket. */
  readonly rank: Uint32Array;
  /** Bucket r holds positions start[r] to start[r + 1] - 1. */
  readonly start: Uint32Array;
}

export function bucketByTable(
  n: number,
  tableAt: (k: number) => number,
  /** The distinct tables in bucket order (may sort the array it is given). */
  inBucketOrder: (tables: number[]) => readonly number[],
): TableBuckets {
  const seen = new Set<number>();
  let lastTable = -1;
  for (let k = 0; k < n; k++) {
    const t = tableAt(k);
    if (t !== lastTable) seen.add((lastTable = t));
  }
  const ordered = inBucketOrder([...seen]);
  const rankOf = new Map<number, number>();
  ordered.forEach((t, r) => rankOf.set(t, r));
  const count = ordered.length;
  const rank = new Uint32Array(n);
  const start = new Uint32Array(count + 1);
  lastTable = -1;
  let lastRank = 0;
  for (let k = 0; k < n; k++) {
    const t = tableAt(k);
    if (t !== lastTable) {
      lastTable = t;
      lastRank = rankOf.get(t) as number;
    }
    rank[k] = lastRank;
    start[lastRank + 1] = (start[lastRank + 1] as number) + 1;
  }
  for (let r = 0; r < count; r++) start[r + 1] = (start[r + 1] as number) + (start[r] as number);
  return { count, rank, start };
}

/** Whether this machine stores the low half of a u64 first (the packed sort keys' layout). */
export const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
