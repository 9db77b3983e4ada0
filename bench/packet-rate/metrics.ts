/**
 * From parsed `show runtime` to per-path figures. Definitions (bench/README.md explains them):
 * - packets: vectors of the path's egress node(s) (`<interface>-tx`), summed over the datapath
 *   threads; Mpps = packets / seconds since `clear runtime`.
 * - a node's clocks = its clocks column × its vectors (else × calls, else × suspends), i.e. every
 *   clock it spent since the clear, including polls that found nothing.
 * - path clocks/packet: Σ clocks of the internal (graph) nodes / packets — the forwarding work,
 *   without the packet generator or a NIC driver.
 * - graph clocks/packet: Σ clocks of internal and input nodes / packets — everything the datapath
 *   threads did per forwarded packet, generator (pg-input) or NIC input included.
 * Datapath threads: the workers when there are any, else the main thread. Processes (API, stats)
 * never count.
 */
import { runtimeName, type NodeKind, type Runtime, type RuntimeThread } from './runtime.js';

export interface NodeFigure {
  readonly name: string;
  readonly kind: NodeKind;
  readonly calls: number;
  readonly vectors: number;
  readonly vectorsPerCall: number;
  /** The node's own clocks per vector (per call when it had no vectors). */
  readonly clocksPerVector: number;
  /** Its share of the path: its clocks / the path's packets. */
  readonly clocksPerPacket: number;
}

export interface PathFigures {
  readonly seconds: number;
  /** Packets out of the egress interface. */
  readonly packets: number;
  /** Packets the input nodes (pg-input, NIC input) produced. */
  readonly received: number;
  /** Vectors of error-drop. */
  readonly dropped: number;
  readonly mpps: number;
  readonly pathClocksPerPacket: number;
  readonly graphClocksPerPacket: number;
  /** Internal and input nodes with vectors, heaviest first. */
  readonly nodes: readonly NodeFigure[];
  /** Thread indexes the figures come from. */
  readonly threads: readonly number[];
  /** Expected nodes no packet went through (the path is not what it should be). */
  readonly missing: readonly string[];
  /** Forbidden nodes packets went through (e.g. a source check on a path that has none). */
  readonly forbidden: readonly string[];
}

export interface PathSelector {
  /** Node names whose vectors are the path's output (e.g. "pg12-tx"). */
  readonly egress: readonly string[];
  /** Nodes every packet of the path must pass (sanity check). */
  readonly expect?: readonly string[];
  /** Nodes no packet of the path may pass. */
  readonly forbid?: readonly string[];
  /** Override the datapath threads (default: workers if any, else the main thread). */
  readonly threads?: readonly number[];
}

export function datapathThreads(runtime: Runtime): RuntimeThread[] {
  const workers = runtime.threads.filter((t) => t.index > 0);
  return workers.length > 0 ? workers : [...runtime.threads];
}

interface Sum {
  kind: NodeKind;
  calls: number;
  vectors: number;
  suspends: number;
  clocks: number;
}

export function pathFigures(runtime: Runtime, sel: PathSelector): PathFigures {
  const threads = sel.threads
    ? runtime.threads.filter((t) => sel.threads?.includes(t.index))
    : datapathThreads(runtime);
  if (threads.length === 0) throw new Error('no datapath thread in the runtime output');
  const seconds = Math.max(...threads.map((t) => t.seconds));
  const byName = new Map<string, Sum>();
  for (const t of threads) {
    for (const n of t.nodes) {
      const s = byName.get(n.name) ?? { kind: n.kind, calls: 0, vectors: 0, suspends: 0, clocks: 0 };
      s.calls += n.calls;
      s.vectors += n.vectors;
      s.suspends += n.suspends;
      s.clocks += n.totalClocks;
      byName.set(n.name, s);
    }
  }
  const vectorsOf = (name: string): number => byName.get(runtimeName(name))?.vectors ?? 0;
  const packets = sel.egress.reduce((sum, e) => sum + vectorsOf(e), 0);
  let received = 0;
  let pathClocks = 0;
  let graphClocks = 0;
  for (const s of byName.values()) {
    if (s.kind === 'process') continue;
    graphClocks += s.clocks;
    if (s.kind === 'internal') pathClocks += s.clocks;
    else received += s.vectors;
  }
  const perPacket = (clocks: number): number => (packets > 0 ? clocks / packets : NaN);
  const nodes: NodeFigure[] = [...byName]
    .filter(([, s]) => s.kind !== 'process' && s.vectors > 0)
    .map(([name, s]) => ({
      name,
      kind: s.kind,
      calls: s.calls,
      vectors: s.vectors,
      vectorsPerCall: s.calls > 0 ? s.vectors / s.calls : 0,
      clocksPerVector: s.clocks / s.vectors,
      clocksPerPacket: perPacket(s.clocks),
    }))
    .sort((a, b) => b.clocksPerPacket - a.clocksPerPacket || a.name.localeCompare(b.name));
  const missing = (sel.expect ?? []).filter((e) => vectorsOf(e) === 0);
  return {
    seconds,
    packets,
    received,
    dropped: vectorsOf('error-drop'),
    mpps: seconds > 0 ? packets / seconds / 1e6 : NaN,
    pathClocksPerPacket: perPacket(pathClocks),
    graphClocksPerPacket: perPacket(graphClocks),
    nodes,
    threads: threads.map((t) => t.index),
    missing,
    forbidden: (sel.forbid ?? []).filter((e) => vectorsOf(e) > 0),
  };
}

/** How far vppnet's configuration is from the hand-made one on the same path. */
export interface Comparison {
  /** vppnet Mpps / hand Mpps. */
  readonly mppsRatio: number;
  /** vppnet path clocks / hand path clocks. */
  readonly clocksRatio: number;
  /** vppnet reaches at least (1 - tolerance) of the hand configuration's Mpps. */
  readonly withinTolerance: boolean;
}

export const TOLERANCE = 0.1;

export function compare(vppnet: PathFigures, hand: PathFigures, tolerance = TOLERANCE): Comparison {
  const mppsRatio = vppnet.mpps / hand.mpps;
  return {
    mppsRatio,
    clocksRatio: vppnet.pathClocksPerPacket / hand.pathClocksPerPacket,
    withinTolerance: Number.isFinite(mppsRatio) && mppsRatio >= 1 - tolerance,
  };
}

/** What one core would forward if it did only the path's graph work: clock rate / path clocks. */
export function pathOnlyMppsPerCore(f: PathFigures, ghz: number | undefined): number {
  return ghz === undefined || !(f.pathClocksPerPacket > 0) ? NaN : (ghz * 1e3) / f.pathClocksPerPacket;
}

export type Pick = 'best' | 'median';

/**
 * The run that stands for repeated measurements: the fastest (default: on a CPU-bound path,
 * interference from the machine only ever slows a run down, so the best run is the closest to the
 * path's own cost), or the median (odd counts: the middle one; even: the lower middle).
 */
export function pickRun<T extends { readonly figures: PathFigures }>(
  runs: readonly T[],
  pick: Pick = 'best',
): T {
  if (runs.length === 0) throw new Error('no runs');
  const sorted = [...runs].sort((a, b) => a.figures.mpps - b.figures.mpps);
  return (pick === 'best' ? sorted[sorted.length - 1] : sorted[Math.floor((sorted.length - 1) / 2)]) as T;
}
