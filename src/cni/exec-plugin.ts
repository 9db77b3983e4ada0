/**
 * Executing a delegated CNI plugin (IPAM) as a child process: the config on stdin, a clean
 * environment, stdout and stderr collected, a deadline (src/util/run-program.ts, not execa: this
 * runs in a process started for every CNI call).
 * (Not src/cni/testing/run-plugin.ts, which runs vppnet-cni's own handlers in-process for tests.)
 */
import { runProgram, type ProgramRun } from '../util/run-program.js';

export type PluginExecution = ProgramRun;

export function execPlugin(
  file: string,
  input: string,
  env: Readonly<Record<string, string>>,
  timeoutMs: number,
): Promise<PluginExecution> {
  return runProgram(file, [], { input, env, timeoutMs });
}
