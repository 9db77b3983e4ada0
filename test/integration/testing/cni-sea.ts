/**
 * vppnet-cni as it is shipped, for the suites that run it: the single executable of `npm run
 * build:cni-sea`, built here (scripts/build-cni-sea.mjs --out TEMP), not by `npm test`'s script,
 * since these suites are its only users in the test run; what they need to run (their skip
 * reasons), the paths a CNI client uses, and the helpers that run processes with a time limit.
 */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const run = promisify(execFile);

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const BUILD_SCRIPT = join(ROOT, 'scripts/build-cni-sea.mjs');
export const CNI_PLUGIN_DIR = process.env['VPPNET_CNI_PLUGIN_DIR'] ?? '/usr/lib/cni';
export const BUSYBOX = ['/bin/busybox', '/usr/bin/busybox'].find((p) => existsSync(p));
export const IS_ROOT = process.getuid?.() === 0;

/** `what`, or 'timeout' if it has not settled within `ms`: a bound on an outside process, not a wait. */
export function within<T>(ms: number, what: Promise<T>): Promise<T | 'timeout'> {
  return Promise.race([what, sleep(ms, 'timeout' as const, { ref: false })]);
}

/** True once the child's collected stdout holds `text` (checked on each chunk); false if it closes first. */
export function untilStdout(
  child: ChildProcessWithoutNullStreams,
  output: { readonly stdout: string },
  text: string,
): Promise<boolean> {
  return new Promise((resolve) => {
    const finish = (found: boolean): void => {
      child.stdout.off('data', onData);
      child.off('close', onClose);
      resolve(found);
    };
    const onData = (): void => {
      if (output.stdout.includes(text)) finish(true);
    };
    const onClose = (): void => finish(output.stdout.includes(text));
    child.stdout.on('data', onData);
    child.on('close', onClose);
    onData();
  });
}

export function onPath(command: string): boolean {
  return (process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin')
    .split(':')
    .some((dir) => dir !== '' && existsSync(join(dir, command)));
}

export const SEA_SKIP =
  process.platform !== 'linux'
    ? 'the single executable is built for Linux'
    : !existsSync(join(ROOT, 'node_modules/esbuild')) || !existsSync(join(ROOT, 'node_modules/postject'))
      ? 'needs the dev dependencies esbuild and postject (npm ci)'
      : false;

export const CTR_SKIP =
  SEA_SKIP ||
  (!IS_ROOT
    ? 'needs root: runs containers, bind-mounts in a private mount namespace, creates veth pairs'
    : !['containerd', 'ctr', 'runc', 'unshare', 'nsenter', 'ip', 'ldd'].every(onPath)
      ? 'needs containerd, ctr and runc (apt-get install containerd), unshare/nsenter, ip and ldd'
      : BUSYBOX === undefined
        ? 'needs busybox for the container rootfs (apt-get install busybox-static)'
        : !existsSync(join(CNI_PLUGIN_DIR, 'static'))
          ? `needs the reference static IPAM plugin in ${CNI_PLUGIN_DIR} (apt-get install containernetworking-plugins)`
          : false);

/** Where the CNI client looks, bind-mounted over in ctr's mount namespace. */
export const CTR_CNI_CONF_DIR = '/etc/cni/net.d';
export const CTR_CNI_BIN_DIR = '/opt/cni/bin';
export const CTR_CNI_CACHE_DIR = '/var/lib/cni';

export const NETWORK = 'vppnet-services';
export const CTR_NAMESPACE = 'vppnet-e2e';
export const POD_IFNAME = 'eth0';

let seaDir: string | undefined;
let seaBuild: Promise<{ path: string; ms: number }> | undefined;

/**
 * Builds the executable once per test run, from the current sources into a temp dir: never a stale
 * or half-built dist/sea, and the ~10 s build is paid only where these suites run.
 */
function builtSea(): Promise<{ path: string; ms: number }> {
  seaBuild ??= (async () => {
    seaDir = await mkdtemp(join(tmpdir(), 'vppnet-sea-'));
    const out = join(seaDir, 'vppnet-cni');
    const started = Date.now();
    await run(process.execPath, [BUILD_SCRIPT, '--out', out], { cwd: ROOT, maxBuffer: 1 << 24 });
    return { path: out, ms: Date.now() - started };
  })();
  return seaBuild;
}

/**
 * The executable, built once per test file; registers the hook that removes it after the file's
 * tests (call at the top level of a test file).
 */
export function singleExecutable(): () => Promise<{ path: string; ms: number }> {
  after(async () => {
    if (seaDir !== undefined) await rm(seaDir, { recursive: true, force: true });
  });
  return builtSea;
}

/** Runs `file` with stdin at EOF, an exact environment and a time limit. */
export function execWith(
  file: string,
  args: readonly string[],
  env: Record<string, string>,
  input = '',
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, stdio: ['pipe', 'pipe', 'pipe'], timeout: 20_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** Copies an executable and the shared libraries ldd lists for it under `root`, at the same paths. */
export async function copyWithLibraries(binary: string, root: string, at = binary): Promise<void> {
  await mkdir(join(root, dirname(at)), { recursive: true });
  await copyFile(binary, join(root, at));
  await chmod(join(root, at), 0o755);
  const { stdout } = await run('ldd', [binary]).catch(() => ({ stdout: '' })); // static: ldd fails
  for (const lib of stdout.match(/\/\S+/g) ?? []) {
    await mkdir(join(root, dirname(lib)), { recursive: true });
    await copyFile(realpathSync(lib), join(root, lib));
  }
}
