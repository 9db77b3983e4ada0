/**
 * The agent as the DaemonSet runs it: its settings in deploy/values/default.yaml, which the
 * benchmarks apply to the agents they start (its memory limit, its Node.js options), so that what
 * they measure is the agent as deployed.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseValues, parseValuesYaml, type Values } from '../../deploy/render/values.js';

const DEFAULT_VALUES = fileURLToPath(new URL('../../../deploy/values/default.yaml', import.meta.url));

let parsed: Values['agent'] | undefined;

/**
 * The agent section of deploy/values/default.yaml, validated as the renderer validates it; read
 * once (bench/fleet asks for it for each of its agents).
 */
export function daemonSetAgent(): Values['agent'] {
  parsed ??= parseValues(
    parseValuesYaml(readFileSync(DEFAULT_VALUES, 'utf8'), DEFAULT_VALUES),
    DEFAULT_VALUES,
  ).agent;
  return parsed;
}

/** The NODE_OPTIONS the DaemonSet gives the agent, as node command-line arguments. */
export function daemonSetNodeArgs(): string[] {
  return daemonSetAgent().nodeOptions.split(' ').filter(Boolean);
}
