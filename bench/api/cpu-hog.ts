/**
 * A second CPU-bound process for the length of a measurement (BENCH_HOG=1): on a 2-core machine it
 * takes one core, so the client's figures show its CPU per request, not only its latency.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface CpuHog {
  stop(): Promise<void>;
}

/** Starts a busy loop in its own Node process; resolves once it runs. */
export async function startCpuHog(): Promise<CpuHog> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['-e', "process.stdout.write('spinning\\n'); for (;;) {}"],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.stdout?.once('data', () => resolve());
  });
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}
