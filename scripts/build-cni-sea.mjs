#!/usr/bin/env node
/**
 * npm run build:cni-sea: vppnet-cni as one self-contained executable (a Node.js single executable
 * application), for hosts without Node.js. Multus runs delegate plugins chrooted into the host's
 * root, so the binary may find neither `node` nor node_modules there.
 *
 *   node scripts/build-cni-sea.mjs [--out FILE]        (default dist/sea/vppnet-cni)
 *
 * 1. esbuild bundles src/cni/main.ts and everything it imports (execa included) into one CommonJS
 *    file, FILE.cjs: a SEA's main script is CommonJS and can require() only Node's built-ins.
 *    It bundles the TypeScript sources directly, so this needs no `tsc` run first (types are
 *    checked by `tsc -b` as for everything else).
 * 2. `node --experimental-sea-config` turns it into a blob, with the settings of the repository's
 *    sea-config.json (its main/output are replaced by FILE.cjs/FILE.blob, so --out can point
 *    anywhere, e.g. a test's temp dir).
 * 3. A copy of the node binary running this script gets the blob injected (postject, resource
 *    NODE_SEA_BLOB, flipping NODE_SEA_FUSE), is made 0755 and renamed onto FILE, so FILE is always
 *    either the previous binary or the complete new one.
 * 4. The result must answer CNI_COMMAND=VERSION with an empty environment, or the build fails.
 *
 * The binary is for this machine's OS and CPU (process.platform/arch): build it where it will run
 * (the Dockerfile's build stage). It needs only the C/C++ runtime libraries node itself links
 * (libc, libstdc++, libgcc_s, libm, libdl, libpthread), which every glibc distribution has.
 *
 * Plain JavaScript on purpose: it is build tooling that must run before (or without) `tsc`.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chmod, copyFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { build, formatMessages } from 'esbuild';
import postject from 'postject';

const execFileAsync = promisify(execFile);

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ENTRY = join(ROOT, 'src/cni/main.ts');
const SEA_CONFIG = join(ROOT, 'sea-config.json');
const DEFAULT_OUT = join(ROOT, 'dist/sea/vppnet-cni');
/** The fuse node's SEA support looks for; Node.js documents this exact string for postject. */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

async function main() {
  const { values } = parseArgs({ options: { out: { type: 'string' } }, allowPositionals: false });
  const out = resolve(values.out ?? DEFAULT_OUT);
  const started = Date.now();
  const step = (what) => process.stdout.write(`build-cni-sea: ${what} (${Date.now() - started} ms)\n`);

  if (process.platform !== 'linux')
    throw new Error(`vppnet-cni is a Linux plugin; this is ${process.platform}`);
  const node = process.execPath;
  const nodeBinary = await readFile(node);
  const fuseAt = nodeBinary.indexOf(SEA_FUSE);
  if (fuseAt === -1) {
    throw new Error(
      `${node} has no single executable application support (no ${SEA_FUSE}); use an official Node.js 20 build`,
    );
  }
  if (nodeBinary[fuseAt + SEA_FUSE.length + 1] !== '0'.charCodeAt(0)) {
    throw new Error(`${node} is itself a single executable application; run this with a plain node`);
  }

  await mkdir(dirname(out), { recursive: true });
  const bundle = `${out}.cjs`;
  const blob = `${out}.blob`;

  // 1. One CommonJS file.
  const result = await build({
    entryPoints: [ENTRY],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    target: `node${process.versions.node.split('.')[0]}`,
    format: 'cjs',
    // Class and function names stay as written: error names and stack traces on stderr read the same.
    keepNames: true,
    legalComments: 'eof',
    logLevel: 'silent',
    metafile: true,
  });
  // Any warning (import.meta in CommonJS, an unresolvable require) would be a broken plugin at run time.
  if (result.warnings.length > 0) {
    const text = await formatMessages(result.warnings, { kind: 'warning' });
    throw new Error(`esbuild warnings:\n${text.join('\n')}`);
  }
  const inputs = Object.keys(result.metafile.inputs);
  step(
    `bundled ${inputs.length} modules (${inputs.filter((i) => i.startsWith('node_modules/')).length} from node_modules) into ${relative(ROOT, bundle)}`,
  );

  // 2. The blob, with the repository's settings.
  const seaConfig = JSON.parse(await readFile(SEA_CONFIG, 'utf8'));
  const effectiveConfig = `${out}.sea-config.json`;
  await writeFile(
    effectiveConfig,
    `${JSON.stringify({ ...seaConfig, main: bundle, output: blob }, null, 2)}\n`,
  );
  await execFileAsync(node, ['--experimental-sea-config', effectiveConfig], { cwd: ROOT });
  step(`prepared ${relative(ROOT, blob)}`);

  // 3. Inject into a copy of node next to FILE, then rename over FILE.
  const temp = `${out}.tmp-${process.pid}`;
  try {
    await copyFile(node, temp);
    await chmod(temp, 0o700);
    const blobData = await readFile(blob);
    await quietLief(() => postject.inject(temp, 'NODE_SEA_BLOB', blobData, { sentinelFuse: SEA_FUSE }));
    await chmod(temp, 0o755);
    await rename(temp, out);
  } finally {
    await rm(temp, { force: true });
  }
  step(`injected into a copy of ${node} (Node.js ${process.version}, ${process.arch})`);

  // 4. It must run with nothing from this environment.
  // stdin must be at EOF (not a pipe left open) or the plugin waits for its config.
  const stdout = execFileSync(out, [], {
    env: { CNI_COMMAND: 'VERSION' },
    cwd: '/',
    input: '',
    timeout: 10_000,
    encoding: 'utf8',
  });
  const reply = JSON.parse(stdout);
  if (!Array.isArray(reply.supportedVersions)) throw new Error(`unexpected VERSION answer: ${stdout}`);
  step(
    `${out.startsWith(`${ROOT}/`) ? relative(ROOT, out) : out} answers VERSION: ${reply.supportedVersions.join(', ')}`,
  );
}

/**
 * postject's ELF editor (LIEF) warns "Can't find string offset for section name '.note...'" once
 * per note section of node's binary, through console.warn; the result is fine (step 4 runs it).
 * Only those lines are dropped.
 */
async function quietLief(fn) {
  const warn = console.warn;
  console.warn = (...args) => {
    if (!/^warning: Can't find string offset for section name/.test(String(args[0]))) warn(...args);
  };
  try {
    return await fn();
  } finally {
    console.warn = warn;
  }
}

main().catch((err) => {
  process.stderr.write(`build-cni-sea: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
