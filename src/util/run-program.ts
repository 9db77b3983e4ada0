/**
 * Running a program as a child process: arguments without a shell, optional stdin, output
 * collected, a deadline. Plain node:child_process rather than execa, on purpose, for both of its
 * users: vppnet-cni is a process started for every CNI call (execa was 85 % of its bundle and
 * ~50 ms of every start), and in the agent importing execa added 11 MB of RSS (measured), in the
 * DaemonSet's 256 Mi with 100k steering entries at 190 of bench/fleet's 200 MB.
 */
import { spawn } from 'node:child_process';

export interface ProgramRun {
  /** Undefined when the process could not be started or was killed (see `error`/`timedOut`). */
  readonly exitCode: number | undefined;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  /** Why it could not run (ENOENT, EACCES, ...) or did not finish (a signal). */
  readonly error?: string;
}

export interface RunOptions {
  /** Written to its stdin, which is then closed; without it, stdin is /dev/null. */
  readonly input?: string;
  /** Its whole environment; the caller's by default. */
  readonly env?: Readonly<Record<string, string>>;
  /** Killed (SIGKILL) after this long. */
  readonly timeoutMs: number;
}

/** A program that floods stdout is broken; keep the start of what it printed, not all of it. */
const MAX_OUTPUT = 16 * 1024 * 1024;

export function runProgram(file: string, args: readonly string[], opts: RunOptions): Promise<ProgramRun> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let error: string | undefined;
    const child = spawn(file, args, {
      ...(opts.env === undefined ? {} : { env: opts.env }),
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs);
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      if (stdout.length < MAX_OUTPUT) stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < MAX_OUTPUT) stderr += chunk;
    });
    if (child.stdin) {
      // A program that exits without reading stdin makes the write fail with EPIPE; its exit says more.
      child.stdin.on('error', () => undefined);
      child.stdin.end(opts.input);
    }
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
