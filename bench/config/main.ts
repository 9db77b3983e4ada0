/**
 * Config validation at fleet scale: validateConfig on a node with 100k remote routes (the shape
 * bench/reconcile loads: 100 VPCs, routes to 1,000 remote nodes), median of rounds. With
 * `--compare FILE` (another build's dist/src/config/validate.js) both run in one process,
 * alternating round by round, so that the ratio is fair on a noisy machine.
 *
 *   npm run build && node dist/bench/config/main.js [--routes 100000] [--rounds 9] [--compare FILE]
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { validateConfig } from '../../src/config/validate.js';

type Validate = (raw: unknown) => unknown;

const { values } = parseArgs({
  options: {
    routes: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '9' },
    compare: { type: 'string' },
  },
});
const routes = Number(values.routes);
const rounds = Number(values.rounds);

/** A fresh raw config each round: validation must not profit from a previous round's objects. */
function rawConfig(): unknown {
  return {
    node: {
      name: 'hv1',
      underlay: { interface: 'memif1/0', address: '2001:db8::1/64', gateway: '2001:db8::2' },
      srv6: { locator: 'fc00:1::/48' },
    },
    vpcs: Array.from({ length: 100 }, (_, i) => ({
      name: `vpc-${i}`,
      id: i + 1,
      subnets: ['10.0.0.0/8'],
      gateway: '10.0.0.1',
    })),
    // From 10.0.1.0 on: 10.0.0.1 is every VPC's gateway, which a remote route may not claim.
    remoteRoutes: Array.from({ length: routes }, (_, i) => ({
      vpc: `vpc-${i % 100}`,
      prefix: `10.${((i + 256) >> 16) & 255}.${((i + 256) >> 8) & 255}.${(i + 256) & 255}/32`,
      sid: `fc00:${(i % 1000) + 2}::${((i % 100) + 1).toString(16)}`,
    })),
  };
}

/**
 * CPU time of the process (all its threads, GC included) rather than wall time: on a machine
 * shared with other work, wall time mostly measures the others.
 */
function timeOnce(validate: Validate): number {
  const raw = rawConfig();
  const t = process.cpuUsage();
  validate(raw);
  const used = process.cpuUsage(t);
  return (used.user + used.system) / 1e3;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? NaN;

const other: Validate | undefined = values.compare
  ? ((await import(pathToFileURL(values.compare).href)) as { validateConfig: Validate }).validateConfig
  : undefined;
const mine: number[] = [];
const theirs: number[] = [];
timeOnce(validateConfig); // warm-up
if (other) timeOnce(other);
for (let r = 0; r < rounds; r++) {
  mine.push(timeOnce(validateConfig));
  if (other) theirs.push(timeOnce(other));
}
console.log(
  `validateConfig, ${routes} remote routes, median of ${rounds}: ${median(mine).toFixed(1)} ms of CPU`,
);
if (other)
  console.log(
    `--compare ${values.compare}: ${median(theirs).toFixed(1)} ms; this build / compared: ${(median(mine) / median(theirs)).toFixed(2)}`,
  );
