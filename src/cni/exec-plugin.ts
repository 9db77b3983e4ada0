/**
 * Executing a delegated CNI plugin (IPAM) as a child process: the config on stdin, a clean
 * environment, stdout and stderr collected, a deadline. Plain node:child_process rather than execa
 * on purpose: vppnet-cni is a process started for every CNI call, and execa was 85 % of its bundle
 * and ~50 ms of every start. The agent, a long-lived process, keeps execa for `ip` and `nsenter`.
 * (Not src/cni/testing/run-plugin.ts, which runs vppnet-cni's own handlers in-process for tests.)
 */
import { spawn } from 'node:child_process';

export interface PluginExecution {
  /** Undefined when the process could not be started or was killed (see `error`/`timedOut`). */
  readonly exitCode: number | undefined;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  /** Why it could not run (ENOENT, EACCES, ...) or did not finish (a signal). */
  readonly error?: string;
}

/** A plugin that floods stdout is broken; keep the start of what it printed, not all of it. */
const MAX_OUTPUT = 16 * 1024 * 1024;

export function execPlugin(
  file: string,
  input: string,
  env: Readonly<Record<string, string>>,
  timeoutMs: number,
): Promise<PluginExecution> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let error: string | undefined;
    const child = spawn(file, [], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (stdout.length < MAX_OUTPUT) stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < MAX_OUTPUT) stderr += chunk;
    });
    // A plugin that exits without reading stdin makes the write fail with EPIPE; its exit says more.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
    child.on('error', (err) => {
      error = err.message;
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === null && !timedOut) error ??= `killed by ${signal ?? 'a signal'}`;
      resolve({
        exitCode: timedOut || error !== undefined || code === null ? undefined : code,
        stdout,
        stderr,
        timedOut,
        ...(error !== undefined && { error }),
      });
    });
  });
}
