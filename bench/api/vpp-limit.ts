/**
 * VPP's own rate on the socket under test: ../shared/tools/vppblast/vppblast.c (beside the repo,
 * not in it) compiled at bench time and run against the same socket. It sends pre-encoded frames
 * with no per-request work, so its rate is the ceiling a client on this machine can approach.
 */
import { execFile } from 'node:child_process';
import { access, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** ../shared/tools/vppblast/vppblast.c, ../shared resolved from the repo root (dist/bench/api/ → root). */
export const DEFAULT_VPPBLAST_SOURCE = path.resolve(
  fileURLToPath(new URL('../../../', import.meta.url)),
  '..',
  'shared',
  'tools',
  'vppblast',
  'vppblast.c',
);

/** What vppblast measures: `ping` (control_ping) or `version` (show_version). */
export type VppblastWork = 'ping' | 'version';

export interface LimitMeasurement {
  readonly requests: number;
  readonly seconds: number;
  /** vppblast's CPU time (user + system) for the whole run, connection set-up included. */
  readonly cpuSeconds?: number;
}

export interface ReplayMeasurement extends LimitMeasurement {
  /** Replies with a non-zero retval: VPP was not in the recording's start state. */
  readonly nonzeroRetval: number;
}

export type VppLimit =
  | {
      readonly available: true;
      /** n requests of `work` with at most `window` in flight (1: sequential round trips). */
      measure(work: VppblastWork, n: number, window: number): Promise<LimitMeasurement>;
      /** Replays recorded frames [from, to) of PREFIX.frames / PREFIX.table (`vppblast … replay`). */
      replay(prefix: string, window: number, from: number, to: number): Promise<ReplayMeasurement>;
      dispose(): Promise<void>;
    }
  | { readonly available: false; readonly reason: string };

export interface VppLimitOptions {
  readonly socketPath: string;
  /** Set when the target is vppnet's simulator: not VPP, so its "limit" means nothing. */
  readonly simulator: boolean;
  readonly source?: string;
  readonly gcc?: string;
}

/** Parses vppblast's result line: `<what> n=<n> window=<w> seconds=<s> req_per_s=<r> nonzero_retval=<e>`. */
export function parseVppblastOutput(stdout: string): LimitMeasurement & { readonly nonzeroRetval: number } {
  const m = /\bn=(\d+) window=\d+ seconds=([\d.]+) req_per_s=\d+ nonzero_retval=(\d+)/.exec(stdout);
  if (!m) throw new Error(`vppblast printed no result line: ${JSON.stringify(stdout.trim())}`);
  return { requests: Number(m[1]), seconds: Number(m[2]), nonzeroRetval: Number(m[3]) };
}

/** Parses vppblast's replay line: `replay range=<a>-<b> frames=<n> window=<w> seconds=<s> req_per_s=<r> nonzero_retval=<e>`. */
export function parseReplayOutput(stdout: string): ReplayMeasurement {
  const m =
    /\breplay range=\d+-\d+ frames=(\d+) window=\d+ seconds=([\d.]+) req_per_s=\d+ nonzero_retval=(\d+)/.exec(
      stdout,
    );
  if (!m) throw new Error(`vppblast replay printed no result line: ${JSON.stringify(stdout.trim())}`);
  return { requests: Number(m[1]), seconds: Number(m[2]), nonzeroRetval: Number(m[3]) };
}

/**
 * The children's user and system times that bash's `times` prints last ("0m0.120s 0m0.340s"):
 * vppblast's CPU time, which Node cannot read for a child it has reaped.
 */
export function parseBashTimes(stdout: string): number | undefined {
  const lines = stdout.trim().split('\n');
  const m = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/.exec((lines[lines.length - 1] ?? '').trim());
  if (!m) return undefined;
  return Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4]);
}

/** Builds vppblast into a temp dir, or says why VPP's limit cannot be measured here. */
export async function prepareVppLimit(opts: VppLimitOptions): Promise<VppLimit> {
  if (opts.simulator)
    return {
      available: false,
      reason: "the target is vppnet's simulator, not VPP: its limit means nothing",
    };
  const source = opts.source ?? DEFAULT_VPPBLAST_SOURCE;
  const gcc = opts.gcc ?? 'gcc';
  try {
    await access(source);
  } catch {
    return { available: false, reason: `no ${source} (the shared vppblast tool)` };
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-vppblast-'));
  const binary = path.join(dir, 'vppblast');
  try {
    await run(gcc, ['-O2', '-o', binary, source]);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    const reason =
      e.code === 'ENOENT'
        ? `${gcc} not found (needed to build vppblast)`
        : `${gcc} -O2 ${source} failed: ${(e.stderr ?? e.message).trim().split('\n')[0] ?? ''}`;
    return { available: false, reason };
  }
  return {
    available: true,
    measure: async (work, n, window) => {
      // Through bash for its `times` (the CPU time of the child it ran), printed after the result.
      const { stdout } = await run(
        'bash',
        ['-c', '"$0" "$@" && times', binary, opts.socketPath, work, String(n), String(window)],
        { maxBuffer: 1 << 20 },
      );
      const r = parseVppblastOutput(stdout);
      if (r.nonzeroRetval !== 0)
        throw new Error(`vppblast ${work}: ${r.nonzeroRetval} replies with a non-zero retval`);
      const cpuSeconds = parseBashTimes(stdout);
      return {
        requests: r.requests,
        seconds: r.seconds,
        ...(cpuSeconds === undefined ? {} : { cpuSeconds }),
      };
    },
    replay: async (prefix, window, from, to) => {
      const { stdout } = await run(
        binary,
        [opts.socketPath, 'replay', prefix, String(window), String(from), String(to)],
        { maxBuffer: 1 << 20 },
      );
      return parseReplayOutput(stdout);
    },
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}
