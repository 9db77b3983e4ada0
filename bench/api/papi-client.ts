/**
 * VPP's own Python client (vpp_papi) on control_ping, for scale: bench/api/papi-rate.py run with
 * the vpp_papi of the VPP source tree on PYTHONPATH (PyPI is not needed), against the same socket.
 * Where it cannot run, `available: false` says exactly why, for the table's note.
 */
import { execFile } from 'node:child_process';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Timed } from './limit-rows.js';

const run = promisify(execFile);

/** bench/api/papi-rate.py in the source tree (dist/bench/api/ → root). */
const SCRIPT = path.resolve(
  fileURLToPath(new URL('../../../', import.meta.url)),
  'bench',
  'api',
  'papi-rate.py',
);

/** Where vpp_papi lives in a VPP source tree, and VPP's installed JSON API files. */
export const DEFAULT_PAPI_PYTHONPATH =
  process.env.BENCH_PAPI_PYTHONPATH ?? '/opt/vppbuild/SRC/src/vpp-api/python';
export const DEFAULT_API_JSON_DIR = process.env.BENCH_PAPI_API_JSON ?? '/opt/vpp2606/share/vpp/api';

export type PapiClient =
  | {
      readonly available: true;
      /** n control_pings: `window` 1 is the synchronous client, more is the asyncio one. */
      measure(n: number, window: number): Promise<Timed>;
    }
  | { readonly available: false; readonly reason: string };

/** Parses papi-rate.py's line: `<what> n=<n> window=<w> seconds=<s> req_per_s=<r>`. */
export function parsePapiOutput(stdout: string): Timed {
  const m = /\bn=(\d+) window=\d+ seconds=([\d.]+) req_per_s=\d+/.exec(stdout);
  if (!m) throw new Error(`papi-rate.py printed no result line: ${JSON.stringify(stdout.trim())}`);
  return { count: Number(m[1]), seconds: Number(m[2]) };
}

export async function preparePapi(opts: {
  readonly socketPath: string;
  readonly simulator: boolean;
  readonly python?: string;
}): Promise<PapiClient> {
  if (opts.simulator) return { available: false, reason: "the target is vppnet's simulator, not VPP" };
  const python = opts.python ?? 'python3';
  const env = {
    ...process.env,
    PYTHONPATH: DEFAULT_PAPI_PYTHONPATH,
    VPP_API_JSON_DIR: DEFAULT_API_JSON_DIR,
  };
  const measure = async (n: number, window: number): Promise<Timed> => {
    const args =
      window <= 1
        ? [SCRIPT, opts.socketPath, 'sync', String(n)]
        : [SCRIPT, opts.socketPath, 'asyncio', String(n), String(window)];
    const { stdout } = await run(python, args, { env, maxBuffer: 1 << 20, timeout: 300_000 });
    return parsePapiOutput(stdout);
  };
  try {
    await access(path.join(DEFAULT_PAPI_PYTHONPATH, 'vpp_papi', 'vpp_papi_async.py'));
    await access(DEFAULT_API_JSON_DIR);
  } catch (err) {
    return {
      available: false,
      reason: `vpp_papi not found: ${(err as Error).message} (set BENCH_PAPI_PYTHONPATH to a VPP source tree's src/vpp-api/python, BENCH_PAPI_API_JSON to VPP's share/vpp/api)`,
    };
  }
  try {
    // A short run first: a missing module or Python fails here, with its own message.
    await measure(50, 1);
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    const why =
      e.code === 'ENOENT'
        ? `${python} not found`
        : ((e.stderr ?? e.message).trim().split('\n').slice(-1)[0] ?? e.message);
    return { available: false, reason: `vpp_papi cannot run here: ${why}` };
  }
  return { available: true, measure };
}
