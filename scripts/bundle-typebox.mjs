#!/usr/bin/env node
/**
 * Part of `npm run build`, after `tsc -b`: replaces dist/src/config/typebox.js (tsc's output of
 * src/config/typebox.ts, re-exports of @sinclair/typebox) with one esbuild bundle of the same
 * exports. TypeBox ships as 266 ES modules; loaded one by one they cost the agent 12–15 MiB of RSS
 * (code and module records), bundled about 3 MiB (src/config/typebox.ts says where that was
 * measured). Every import of TypeBox goes through that one module (eslint refuses another), so
 * the bundle holds the only copy of its registries (FormatRegistry).
 *
 * Without this step the tsc output works the same, unbundled. The bundle is written beside the
 * output and renamed onto it, so a reader sees either file whole (esm-bundle.mjs). Plain
 * JavaScript: build tooling.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeEsmBundle } from './esm-bundle.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

await writeEsmBundle({
  entry: join(ROOT, 'src/config/typebox.ts'),
  outfile: join(ROOT, 'dist/src/config/typebox.js'),
});
