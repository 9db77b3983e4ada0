/**
 * Parsers for the VPP CLI output the packet-rate benchmark reads: `show runtime`, `show threads`
 * and `show cpu`. Layouts follow VPP 26.06's source:
 *
 * `show runtime` (src/vlib/node_cli.c, show_node_runtime and format_vlib_node_stats): with more
 * than one thread each block starts with "Thread %d %s (lcore %u)" (or without the lcore part) and
 * blocks are separated by "---------------"; then
 *   "Time %.1f, %f sec internal node vector rate %.2f loops/sec %.2f"
 *   "  vector rates in %.4e, out %.4e, drop %.4e, punt %.4e"
 * a header, and one row per node called since `clear runtime`:
 *   "%-30v%=12U%16Ld%16Ld%16Ld%16.2e%16.2f"  name, state, calls, vectors, suspends, clocks, vectors/call
 * vppinfra's justify() truncates a field to its width, so a name is at most 30 characters and the
 * state 12 ("interrupt wait" shows as "interrupt wa"); process states are printed with quotes in
 * 26.06 (`#s` of a string literal in foreach_vlib_process_state). Floats use vppinfra's own
 * format_float: "1.05e2", "0.00e0", ".50". The clocks column is clocks per vector, or per call when
 * a node had no vectors, or per suspend when it had neither.
 */

/** What a node is, told apart by the state VPP prints for it. */
export type NodeKind = 'internal' | 'input' | 'process';

export interface RuntimeNode {
  /** As printed: VPP truncates names to 30 characters. */
  readonly name: string;
  readonly state: string;
  readonly kind: NodeKind;
  readonly calls: number;
  readonly vectors: number;
  readonly suspends: number;
  /** The clocks column: per vector, else per call, else per suspend (3 significant digits). */
  readonly clocks: number;
  readonly vectorsPerCall: number;
  /** clocks × (vectors, else calls, else suspends): the node's clocks since `clear runtime`. */
  readonly totalClocks: number;
}

export interface RuntimeThread {
  /** 0 for the main thread; blocks without a "Thread" line (no workers) are thread 0. */
  readonly index: number;
  readonly name: string;
  readonly lcore: number | undefined;
  /** Seconds since `clear runtime`. */
  readonly seconds: number;
  readonly vectorRate: number;
  readonly loopsPerSecond: number;
  readonly nodes: readonly RuntimeNode[];
}

export interface Runtime {
  readonly threads: readonly RuntimeThread[];
}

/** Width of the name and state columns in format_vlib_node_stats. */
const NAME_WIDTH = 30;
const STATE_WIDTH = 12;

const THREAD_RE = /^Thread (\d+) (\S+)(?: \(lcore (\d+)\))?\s*$/;
const TIME_RE = /^Time ([\d.]+), (\S+) sec internal node vector rate ([\d.]+) loops\/sec ([\d.]+)/;
const NUMBER_RE = /^-?(\d+\.?\d*|\.\d+)(e-?\d+)?$/;
/** How a state can begin: the node states format_vlib_node_state prints, quoted for processes. */
const STATE_START_RE = /^("|active|polling|disabled|interrupt)/;

/** VPP's node names as `show runtime` prints them (truncated to the column width). */
export function runtimeName(node: string): string {
  return node.slice(0, NAME_WIDTH);
}

function kindOf(state: string): NodeKind {
  const s = state.replace(/"/g, '');
  if (s === 'active') return 'internal';
  if (s === 'polling' || s === 'disabled' || s.startsWith('interrupt')) return 'input';
  return 'process';
}

function parseNumber(text: string): number | undefined {
  return NUMBER_RE.test(text) ? Number(text) : undefined;
}

/** One node row, or undefined for anything else (header, "events pending" continuation lines). */
export function parseNodeRow(line: string): RuntimeNode | undefined {
  const trimmed = line.trimEnd();
  const m = /^(.*?)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)$/.exec(trimmed);
  if (!m) return undefined;
  const nums = m.slice(2, 7).map(parseNumber);
  if (nums.some((n) => n === undefined)) return undefined;
  const [calls, vectors, suspends, clocks, vectorsPerCall] = nums as [number, number, number, number, number];
  const prefix = (m[1] as string).trim();
  const split = /^(\S+)(.*)$/.exec(prefix);
  if (!split) return undefined;
  let name = split[1] as string;
  let state = (split[2] as string).trim();
  if (name.length > NAME_WIDTH && STATE_START_RE.test(name.slice(NAME_WIDTH))) {
    // A 30-character name runs into a 12-character state ("interrupt wa"): split at the column.
    name = prefix.slice(0, NAME_WIDTH);
    state = prefix.slice(NAME_WIDTH, NAME_WIDTH + STATE_WIDTH).trim();
  }
  if (!name || !state || name === 'Name') return undefined;
  const per = vectors > 0 ? vectors : calls > 0 ? calls : suspends;
  return {
    name,
    state,
    kind: kindOf(state),
    calls,
    vectors,
    suspends,
    clocks,
    vectorsPerCall,
    totalClocks: clocks * per,
  };
}

export function parseShowRuntime(text: string): Runtime {
  const threads: RuntimeThread[] = [];
  let current:
    | {
        index: number;
        name: string;
        lcore: number | undefined;
        seconds: number;
        vectorRate: number;
        loopsPerSecond: number;
        nodes: RuntimeNode[];
      }
    | undefined;
  let pendingHeader: { index: number; name: string; lcore: number | undefined } | undefined;
  const flush = (): void => {
    if (current) threads.push(current);
    current = undefined;
  };
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\s+$/, '');
    if (line.length === 0) continue;
    if (/^-{5,}$/.test(line)) {
      flush();
      continue;
    }
    const t = THREAD_RE.exec(line);
    if (t) {
      flush();
      pendingHeader = {
        index: Number(t[1]),
        name: t[2] as string,
        lcore: t[3] === undefined ? undefined : Number(t[3]),
      };
      continue;
    }
    const time = TIME_RE.exec(line);
    if (time) {
      flush();
      const head = pendingHeader ?? {
        index: threads.length,
        name: threads.length === 0 ? 'vpp_main' : `thread ${threads.length}`,
        lcore: undefined,
      };
      pendingHeader = undefined;
      current = {
        ...head,
        seconds: Number(time[1]),
        vectorRate: Number(time[3]),
        loopsPerSecond: Number(time[4]),
        nodes: [],
      };
      continue;
    }
    if (!current) continue;
    const node = parseNodeRow(line);
    if (node) current.nodes.push(node);
  }
  flush();
  if (threads.length === 0) throw new Error('not `show runtime` output: no "Time …" line found');
  return { threads };
}

export interface ThreadInfo {
  readonly id: number;
  readonly name: string;
  /** The thread registration ("workers"), empty for the main thread. */
  readonly type: string;
  readonly lcore: number | undefined;
}

/**
 * `show threads` (src/vlib/threads_cli.c, show_threads_fn): a header, then per thread
 * "%-7d%-20s%-12s%-8d" id, name, registration name (empty for main), LWP, then the scheduling
 * policy "other (0)" and lcore/core/socket or "n/a".
 */
export function parseShowThreads(text: string): {
  readonly threads: readonly ThreadInfo[];
  readonly workers: number;
} {
  const threads: ThreadInfo[] = [];
  for (const line of text.split(/\r?\n/)) {
    const tokens = line.trim().split(/\s+/);
    if (tokens.length < 3 || !/^\d+$/.test(tokens[0] as string)) continue;
    const id = Number(tokens[0]);
    const name = tokens[1] as string;
    const hasType = !/^\d+$/.test(tokens[2] as string);
    const type = hasType ? (tokens[2] as string) : '';
    // After the LWP come the policy "<name> (<prio>)" and then lcore, core, socket.
    const afterPolicy = tokens.slice(hasType ? 4 : 3);
    const close = afterPolicy.findIndex((x) => x.endsWith(')'));
    const lcoreText = close >= 0 ? afterPolicy[close + 1] : undefined;
    threads.push({
      id,
      name,
      type,
      lcore: lcoreText !== undefined && /^\d+$/.test(lcoreText) ? Number(lcoreText) : undefined,
    });
  }
  if (threads.length === 0) throw new Error('not `show threads` output: no thread rows found');
  return { threads, workers: threads.filter((t) => t.type === 'workers').length };
}

/** `show cpu` (src/vlib/cli.c, show_cpu): "Model name:" and "Base frequency: %.4f GHz" (the clock runtime counts). */
export function parseShowCpu(text: string): {
  readonly model: string | undefined;
  readonly ghz: number | undefined;
} {
  const model = /^Model name:\s+(.*?)\s*$/m.exec(text)?.[1];
  const ghz = /^Base frequency:\s+([\d.]+) GHz/im.exec(text)?.[1];
  return { model, ghz: ghz === undefined ? undefined : Number(ghz) };
}
