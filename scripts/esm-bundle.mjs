/**
 * One ES module bundle written by esbuild, as the build writes its bundles (bundle-typebox.mjs,
 * bundle-agent.mjs): built in memory, then each output file written beside its path and renamed
 * onto it, the source map first and the module that names it last, so that a reader sees either
 * file whole. Plain JavaScript: build tooling.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { build } from 'esbuild';

/**
 * Bundles `entry` into `outfile` (ESM, Node 20, with a source map); `options` adds to or overrides
 * esbuild's. `executable`: the module is written 0755 (run through a symlink), its map not.
 */
export async function writeEsmBundle({ entry, outfile, executable = false, options = {} }) {
  const { outputFiles } = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    outfile,
    write: false,
    logLevel: 'warning',
    ...options,
  });
  // A clean checkout has no output directory yet.
  await mkdir(dirname(outfile), { recursive: true });
  for (const file of [...outputFiles].sort(
    (a, b) => Number(b.path.endsWith('.map')) - Number(a.path.endsWith('.map')),
  )) {
    const mode = executable && !file.path.endsWith('.map') ? 0o755 : 0o644;
    await writeFile(`${file.path}.tmp`, file.contents, { mode });
    await rename(`${file.path}.tmp`, file.path);
  }
}
