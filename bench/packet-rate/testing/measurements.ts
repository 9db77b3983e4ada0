/** Measurements for the report's and the chart's tests: a path at a rate, nothing else varies. */
import type { PathFigures } from '../metrics.js';
import type { Measurement } from '../report.js';

/**
 * A path's figures at `mpps` over 10 s, no drops; clocks per packet on the path and on the whole
 * graph (default: 100 and 120 at 1 Mpps, fewer as the rate rises).
 */
export function figuresAt(
  mpps: number,
  clocks: { readonly path: number; readonly graph: number } = { path: 100 / mpps, graph: 120 / mpps },
): PathFigures {
  return {
    seconds: 10,
    packets: mpps * 1e7,
    received: mpps * 1e7,
    dropped: 0,
    mpps,
    pathClocksPerPacket: clocks.path,
    graphClocksPerPacket: clocks.graph,
    nodes: [],
    threads: [0],
    missing: [],
    forbidden: [],
  };
}

export function measurement(
  path: Measurement['path'],
  config: Measurement['config'],
  size: string,
  mpps: number,
): Measurement {
  return {
    path,
    config,
    size,
    ingress: 'pg10',
    egress: 'pg12',
    streams: [],
    figures: figuresAt(mpps),
    runsMpps: [mpps],
  };
}
