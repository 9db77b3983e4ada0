/**
 * VPP's own Python client (vpp_papi) on control_ping, for scale: bench/api/papi-rate.py run with
 * the vpp_papi of the VPP install (or source tree) on PYTHONPATH (PyPI is not needed), against the
 * same socket.
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

/**
 * Where VPP's Python client and JSON API files are, in the order looked at: the variables, then
 * where VPP's own installs put them: Debian/Ubuntu packages (python3-vpp-api, vpp's
 * /usr/share/vpp/api), `make install` or `ninja install` under /usr/local or a prefix such as
 * /opt/vpp (vpp_papi under PREFIX/local/lib/python3.X/dist-packages), and a source tree.
 */
const PAPI_DIRS = (): string[] => [
  ...(process.env.BENCH_PAPI_PYTHONPATH ? [process.env.BENCH_PAPI_PYTHONPATH] : []),
  ...[
    '/usr/lib/python3/dist-packages',
    '/usr/local/lib',
    '/opt/vpp/local/lib',
    '/usr/local/local/lib',
  ].flatMap((d) =>
    d.endsWith('dist-packages') ? [d] : pythonVersions().map((v) => `${d}/${v}/dist-packages`),
  ),
  '/opt/vppbuild/SRC/src/vpp-api/python',
];
const API_JSON_DIRS = (): string[] => [
  ...(process.env.BENCH_PAPI_API_JSON ? [process.env.BENCH_PAPI_API_JSON] : []),
  '/usr/share/vpp/api',
  '/usr/local/share/vpp/api',
  '/opt/vpp/share/vpp/api',
];

function pythonVersions(): string[] {
  return ['python3.13', 'python3.12', 'python3.11', 'python3.10', 'python3.9'];
}

async function firstExisting(candidates: readonly string[], inside: string): Promise<string | undefined> {
  for (const dir of candidates) {
    try {
      await access(path.join(dir, inside));
      return dir;
    } catch {
      // next
    }
  }
  return undefined;
}

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
  const papiDir = await firstExisting(PAPI_DIRS(), path.join('vpp_papi', 'vpp_papi_async.py'));
  const apiJsonDir = await firstExisting(API_JSON_DIRS(), 'core');
  if (papiDir === undefined || apiJsonDir === undefined)
    return {
      available: false,
      reason:
        `${papiDir === undefined ? `vpp_papi not found in ${PAPI_DIRS().join(', ')}` : ''}` +
        `${papiDir === undefined && apiJsonDir === undefined ? '; ' : ''}` +
        `${apiJsonDir === undefined ? `VPP's JSON API files not found in ${API_JSON_DIRS().join(', ')}` : ''}` +
        ' (set BENCH_PAPI_PYTHONPATH to the directory holding vpp_papi, BENCH_PAPI_API_JSON to share/vpp/api)',
    };
  const env = { ...process.env, PYTHONPATH: papiDir, VPP_API_JSON_DIR: apiJsonDir };
  const measure = async (n: number, window: number): Promise<Timed> => {
    const args =
      window <= 1
        ? [SCRIPT, opts.socketPath, 'sync', String(n)]
        : [SCRIPT, opts.socketPath, 'asyncio', String(n), String(window)];
    const { stdout } = await run(python, args, { env, maxBuffer: 1 << 20, timeout: 300_000 });
    return parsePapiOutput(stdout);
  };
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
