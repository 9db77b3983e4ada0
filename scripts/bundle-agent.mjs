#!/usr/bin/env node
/**
 * Part of `npm run build`, after `tsc -b` and bundle-typebox.mjs: vppnet-agent as one ES module,
 * dist/bundle/vppnet-agent.js (with its source map), its node_modules included. This is what the
 * image runs (the Dockerfile's vppnet-agent) and what bench/fleet measures.
 *
 * Why: an agent restarted on a node starts from nothing, and until it serves /metrics and
 * connects to VPP nothing else happens. Unbundled, Node's ESM loader resolves, reads and compiles
 * a few hundred modules one at a time (vppnet's, grpc-js', protobufjs', pino's, prom-client's):
 * `--version` took 0.37–0.52 s. One file is read and compiled at once (bench/results/
 * 2026-12-07-agent-bundle.md has the before and after).
 *
 * It bundles the TypeScript sources (src/agent/main.ts), as build-cni-sea.mjs does, so the map
 * points at them; tsc -b has already type-checked them. dist/src/agent/main.js, tsc's output,
 * keeps working as before (tests and `npm run` scripts use it). Nothing in the agent reads a file
 * relative to its own module (etcd's protos come from a generated descriptor), which a bundle
 * would move. The bundle is checked by src/agent/main.test.ts, which runs both.
 *
 * Plain JavaScript: build tooling.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeEsmBundle } from './esm-bundle.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

await writeEsmBundle({
  entry: join(ROOT, 'src/agent/main.ts'),
  outfile: join(ROOT, 'dist/bundle/vppnet-agent.js'),
  executable: true,
  options: {
    // No keepNames: it wraps every named function and class in a call that redefines its `name`,
    // closures made in hot paths included, and a cold start with 100k endpoints then peaked ~10 MiB
    // higher with 2 MiB more live heap (bench/results/2026-12-07-agent-bundle.md). The price: a
    // top-level name that two modules share gets a suffix in the bundle (prom-client's Counter2,
    // RetrySchedule2; no error class today, whose name pino logs as `type`).
    legalComments: 'eof',
    // The dependencies are CommonJS; their require() of Node's built-ins needs a require in an ES
    // module. (esbuild keeps main.ts's shebang first: the image runs the file through a symlink.)
    banner: {
      js: [
        "import { createRequire as __vppnetCreateRequire } from 'node:module';",
        'const require = __vppnetCreateRequire(import.meta.url);',
      ].join('\n'),
    },
  },
});
