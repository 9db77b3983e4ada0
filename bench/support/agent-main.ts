/**
 * The vppnet-agent entry the benchmarks start: the one-file bundle `npm run build` makes
 * (scripts/bundle-agent.mjs), as the image's vppnet-agent is, which starts faster than tsc's output
 * loaded module by module; so what the benchmarks time and count is what the DaemonSet runs.
 * BENCH_AGENT_MAIN=dist/src/agent/main.js (or another entry) runs the agents started from then on
 * from there instead, to compare.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const AGENT_BUNDLE = fileURLToPath(new URL('../../bundle/vppnet-agent.js', import.meta.url));

export function agentMain(): string {
  return process.env.BENCH_AGENT_MAIN ? path.resolve(process.env.BENCH_AGENT_MAIN) : AGENT_BUNDLE;
}
