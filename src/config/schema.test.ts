import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CONFIG_FIELDS, configReferenceMarkdown } from './reference.js';
import { ConfigSchema } from './schema.js';
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
      assert.ok(
        CONFIG_FIELDS.some((f) => f.path.startsWith(parent === '' ? '' : `${parent}.`)),
        parent,
      );
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

describe('config schema', () => {
  it('is plain JSON Schema, and the ranges it states are the ones validation applies', () => {
    const json = JSON.parse(JSON.stringify(ConfigSchema)) as {
      properties: { node: { properties: { underlay: { properties: { mtu: Record<string, unknown> } } } } };
    };
    const mtu = json.properties.node.properties.underlay.properties.mtu;
    assert.equal(mtu.type, 'integer');
    const raw = { node: { name: 'n', underlay: {}, srv6: {} } } as Record<string, unknown>;
    const node = raw.node as { underlay: Record<string, unknown> };
    node.underlay.mtu = (mtu.maximum as number) + 1;
    assert.throws(
      () => validateConfig(raw),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.problems.some(
          (p) =>
            p.path === 'node.underlay.mtu' &&
            p.message === `must be an integer from ${String(mtu.minimum)} to ${String(mtu.maximum)}`,
        ),
    );
  });

  it('reports structural problems in the order the schema lists the fields', () => {
    try {
      validateConfig({ node: { name: 'NOT A NAME', extra: 1 } });
      assert.fail('accepted');
    } catch (err) {
      assert.ok(err instanceof ConfigError);
      assert.deepEqual(
        err.problems.map((p) => `${p.path}: ${p.message.split(' ').slice(0, 2).join(' ')}`),
        [
          'node.extra: unknown field',
          'node.name: must be',
          'node.underlay: is required',
          'node.srv6: is required',
        ],
      );
    }
  });
});
