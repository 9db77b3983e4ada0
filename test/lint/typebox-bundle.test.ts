/**
 * `npm run build` (which `npm test` and the Dockerfile run) leaves TypeBox as one bundled module
 * (scripts/bundle-typebox.mjs): loaded as the package's 266 modules it cost the agent 9–11 MiB
 * of RSS at rest. The bundle must still be TypeBox: the config's formats and checks run through
 * it, and a config the schema refuses is refused.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';

import { TypeCompiler, Type, FormatRegistry } from '../../src/config/typebox.js';
import { parseConfig } from '../../src/config/load.js';

const BUILT = new URL('../../src/config/typebox.js', import.meta.url);

describe('TypeBox, bundled by npm run build', () => {
  it('is one module that imports nothing from the package', async () => {
    const text = await readFile(BUILT, 'utf8');
    assert.doesNotMatch(
      text,
      /\b(?:from|import)\s*\(?\s*["']@sinclair\/typebox/,
      'dist/src/config/typebox.js still imports @sinclair/typebox: run `npm run build` (tsc -b alone does not bundle)',
    );
  });

  it('compiles and checks schemas, with the formats the config registered', () => {
    assert.ok(FormatRegistry.Has('ip6'), 'the config schema registered its formats in this copy');
    const check = TypeCompiler.Compile(Type.Object({ n: Type.Integer({ minimum: 1 }) }));
    assert.equal(check.Check({ n: 1 }), true);
    assert.equal(check.Check({ n: 0 }), false);
  });

  it('refuses a config whose field breaks the schema, naming the field', () => {
    assert.throws(
      () => parseConfig('node:\n  name: 42\n'),
      (err: Error) => /node\.name/.test(err.message),
    );
  });
});
