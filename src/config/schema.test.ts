import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CONFIG_FIELDS, configReferenceMarkdown, fieldsUnder } from './schema.js';
import { ConfigError, validateConfig } from './validate.js';

const README = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

describe('configuration reference', () => {
  it('is in the README exactly as generated from the schema', () => {
    const m = /<!-- config-reference:start -->\n([\s\S]*?)\n<!-- config-reference:end -->/.exec(README);
    assert.ok(m, 'README has the config-reference markers');
    assert.equal(
      m[1],
      configReferenceMarkdown(),
      'run: node dist/src/cli/vppnet.js config-reference, and paste it into README.md',
    );
  });

  it('lists every field validation accepts, and validation rejects what it does not list', () => {
    // A field missing from the schema is rejected as unknown: try one per mapping.
    for (const parent of ['', 'node', 'node.underlay', 'node.srv6', 'services']) {
      assert.ok(fieldsUnder(parent).length > 0, parent);
      const raw: Record<string, unknown> = { node: { name: 'n', underlay: {}, srv6: {} } };
      const target =
        parent === ''
          ? raw
          : parent
              .split('.')
              .reduce<Record<string, unknown>>((o, k) => (o[k] ??= {}) as Record<string, unknown>, raw);
      target.notInTheSchema = 1;
      const err = (() => {
        try {
          validateConfig(raw);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      assert.ok(err instanceof ConfigError);
      assert.ok(
        err.problems.some((p) => p.path.endsWith('notInTheSchema') && /unknown field/.test(p.message)),
        parent,
      );
    }
    assert.equal(
      new Set(CONFIG_FIELDS.map((f) => f.path)).size,
      CONFIG_FIELDS.length,
      'no field documented twice',
    );
  });
});
