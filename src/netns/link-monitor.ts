/**
 * Deletions of links in the agent's network namespace, as rtnetlink announces them
 * (`ip -o monitor link`). The agent uses it to notice at once when a pod's network namespace went
 * away without a CNI DEL: the kernel then destroys the pod's veth pair, and VPP, still holding an
 * af_packet port on the host end, logs an error per poll (with many such ports on a busy machine
 * its main thread was seen spinning and no longer answering the API) until the port is removed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** The link name in an `ip -o monitor link` line announcing a deletion, e.g. "Deleted 42: vpn0@NONE: <...>". */
export function deletedLinkName(line: string): string | undefined {
  return /^Deleted \d+: ([^:@\s]+)[@:]/.exec(line)?.[1];
}

export interface LinkDeletionWatch {
  close(): void;
}

export interface LinkDeletionWatchOptions {
  /** Wait before starting `ip monitor` again when it ended by itself (default 5 s). */
  readonly restartDelayMs?: number;
  /** `ip` could not run or ended; the watch restarts it after the delay. */
  readonly onProblem?: (message: string) => void;
}

export function watchLinkDeletions(
  onDeleted: (name: string) => void,
  opts: LinkDeletionWatchOptions = {},
): LinkDeletionWatch {
  const restartDelayMs = opts.restartDelayMs ?? 5000;
  let closed = false;
  let child: ChildProcess | undefined;
  let timer: NodeJS.Timeout | undefined;

  const start = (): void => {
    const proc = spawn('ip', ['-o', 'monitor', 'link'], { stdio: ['ignore', 'pipe', 'ignore'] });
    child = proc;
    const lines = createInterface({ input: proc.stdout });
    lines.on('line', (line) => {
      const name = deletedLinkName(line);
      if (name !== undefined) onDeleted(name);
    });
    proc.on('error', (err) => opts.onProblem?.(`cannot run ip monitor: ${err.message}`));
    proc.on('close', (code, signal) => {
      lines.close();
      if (closed) return;
      opts.onProblem?.(`ip monitor ended (${signal ?? `exit ${code}`}); restarting in ${restartDelayMs} ms`);
      timer = setTimeout(start, restartDelayMs);
      timer.unref();
    });
  };
  start();
  return {
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      child?.kill();
    },
  };
}
