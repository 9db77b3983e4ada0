/**
 * The VPP a benchmark runs against: a real one at VPP_API_SOCKET, or the simulator in a child
 * process (so its CPU time is not charged to the client being measured).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { helperExecArgv, leaveMemoryLimit } from './memory-limit.js';

export interface VppUnderTest {
  readonly socketPath: string;
  readonly description: string;
  /** Restarts the simulator (all state lost); undefined against a real VPP. */
  readonly restart: (() => Promise<void>) | undefined;
  stop(): Promise<void>;
}

export async function vppUnderTest(): Promise<VppUnderTest> {
  const real = process.env.VPP_API_SOCKET;
  if (real)
    return {
      socketPath: real,
      description: `real VPP at ${real}`,
      restart: undefined,
      stop: () => Promise.resolve(),
    };
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-bench-'));
  const socketPath = path.join(dir, 'api.sock');
  const child: ChildProcess = fork(
    fileURLToPath(new URL('./sim-process.js', import.meta.url)),
    [socketPath],
    {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      execArgv: helperExecArgv(),
    },
  );
  if (child.pid !== undefined) await leaveMemoryLimit(child.pid);
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
  });
  return {
    socketPath,
    description: 'vppnet VPP simulator (child process; set VPP_API_SOCKET for a real VPP)',
    restart: () =>
      new Promise<void>((resolve) => {
        child.once('message', () => resolve());
        child.send('restart');
      }),
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
