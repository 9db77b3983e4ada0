/**
 * Loaded into each agent bench/fleet starts (`--import`, with `--expose-gc`): on SIGUSR2 it
 * collects garbage and writes the live heap (V8's used_heap_size, in bytes) to the file named by
 * VPPNET_BENCH_HEAP_FILE. The benchmark reads an agent's live heap after GC from the outside this
 * way; the agent itself has no such hook. Nothing happens until the signal.
 */
import { renameSync, writeFileSync } from 'node:fs';
import v8 from 'node:v8';

const file = process.env.VPPNET_BENCH_HEAP_FILE;
const gc = (globalThis as { gc?: () => void }).gc;
if (file !== undefined && gc !== undefined)
  process.on('SIGUSR2', () => {
    gc();
    // Written whole and then renamed: the benchmark waits for the file to appear.
    writeFileSync(`${file}.part`, String(v8.getHeapStatistics().used_heap_size));
    renameSync(`${file}.part`, file);
  });
