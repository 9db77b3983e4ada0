#!/usr/bin/env node
/**
 * Generates the TypeScript types of etcd's gRPC API (./generated) from its protos (./proto) with
 * @grpc/proto-loader's own generator, proto-loader-gen-types, under the options the client loads
 * the protos with (grpc-api.ts). Usage:
 *   npm run gen:etcd-types -- [--check]
 * --check exits 1 when the checked-in types differ from the generator's output (CI runs it
 * through generated-types.test.ts), so a hand edit or a proto change without regenerating fails.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { LOAD_OPTIONS, PROTO_DIR, PROTO_ROOT } from './grpc-api.js';

/** The repository's root: this file runs as dist/src/datastore/etcd/generate-types.js. */
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const GENERATED_DIR = path.join(ROOT, 'src/datastore/etcd/generated');
const GENERATOR = createRequire(import.meta.url).resolve(
  '@grpc/proto-loader/build/bin/proto-loader-gen-types.js',
);

/** LOAD_OPTIONS as the generator's flags: `--keepCase`, `--longs Number`, … */
function loadOptionFlags(): string[] {
  return Object.entries(LOAD_OPTIONS).flatMap(([name, value]) =>
    value === true ? [`--${name}`] : typeof value === 'function' ? [`--${name}`, value.name] : [],
  );
}

/** Runs the generator into `outDir`. */
export async function generateEtcdTypes(outDir: string): Promise<void> {
  await promisify(execFile)(
    process.execPath,
    [
      GENERATOR,
      ...loadOptionFlags(),
      '--grpcLib',
      '@grpc/grpc-js',
      // NodeNext ESM imports name the compiled file.
      '--importFileExtension',
      '.js',
      '--includeComments',
      '--includeDirs',
      path.relative(ROOT, PROTO_DIR),
      '--outDir',
      outDir,
      PROTO_ROOT,
    ],
    // From the root, so that each file's "Original file:" line is the same wherever it runs.
    { cwd: ROOT },
  );
}

/** Every file under `dir`, by its path relative to `dir`, sorted. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

/** The first difference between the generated tree in `fresh` and the checked-in one, or undefined. */
export async function firstDifference(fresh: string, checkedIn = GENERATED_DIR): Promise<string | undefined> {
  const [want, have] = await Promise.all([filesUnder(fresh), filesUnder(checkedIn)]);
  const missing = want.filter((f) => !have.includes(f));
  if (missing.length > 0) return `${missing[0]} is not checked in (${missing.length} files missing)`;
  const extra = have.filter((f) => !want.includes(f));
  if (extra.length > 0) return `${extra[0]} is not generated any more (${extra.length} extra files)`;
  for (const file of want) {
    const [a, b] = await Promise.all([
      readFile(path.join(fresh, file), 'utf8'),
      readFile(path.join(checkedIn, file), 'utf8'),
    ]);
    if (a !== b) return `${file} differs from the generator's output`;
  }
  return undefined;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-etcd-types-'));
  try {
    await generateEtcdTypes(dir);
    const relative = path.relative(ROOT, GENERATED_DIR);
    if (values.check) {
      const difference = await firstDifference(dir);
      if (difference !== undefined) {
        process.stderr.write(`${relative}: ${difference}: run npm run build && npm run gen:etcd-types\n`);
        process.exitCode = 1;
      }
      return;
    }
    await rm(GENERATED_DIR, { recursive: true, force: true });
    await cp(dir, GENERATED_DIR, { recursive: true });
    process.stdout.write(`wrote ${relative}\n`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
