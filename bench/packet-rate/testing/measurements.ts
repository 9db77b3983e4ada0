/** Measurements for the report's and the chart's tests: a path at a rate, nothing else varies. */
import type { PathFigures } from '../metrics.js';
import type { Measurement } from '../report.js';

/** A path's figures at `mpps`: no drops, 100 clocks per packet on the path and 120 on the graph at 1 Mpps. */
export function pathFigures(mpps: number): PathFigures {
  return {
    seconds: 10,
    packets: mpps * 1e7,
    received: mpps * 1e7,
    dropped: 0,
    mpps,
    pathClocksPerPacket: 100 / mpps,
    graphClocksPerPacket: 120 / mpps,
    nodes: [],
    threads: [0],
    missing: [],
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
    figures: pathFigures(mpps),
    runsMpps: [mpps],
  };
}
