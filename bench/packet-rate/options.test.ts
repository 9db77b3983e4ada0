import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MEASURED_CONFIGS, measuresConfig, parseOptions } from './options.js';

describe('--configs', () => {
  it('measures vppnet, hand and hand-checks by default; the baseline goes with its path', () => {
    const opts = parseOptions([]);
    assert.deepEqual(opts.configs, [...MEASURED_CONFIGS]);
    assert.deepEqual(MEASURED_CONFIGS, ['vppnet', 'hand', 'hand-checks']);
    assert.ok(measuresConfig(parseOptions(['--configs', 'vppnet']), 'baseline'));
  });

  it('chooses among them', () => {
    const opts = parseOptions(['--configs', 'vppnet,hand-checks']);
    assert.deepEqual(opts.configs, ['vppnet', 'hand-checks']);
    assert.ok(!measuresConfig(opts, 'hand'));
    assert.ok(measuresConfig(opts, 'hand-checks'));
  });

  it('refuses an unknown configuration, and --strict without vppnet and hand (what it judges)', () => {
    assert.throws(() => parseOptions(['--configs', 'vppnet,baseline']), { code: 'VPPNET_BENCH_USAGE' });
    assert.throws(() => parseOptions(['--configs', '']), { code: 'VPPNET_BENCH_USAGE' });
    assert.throws(() => parseOptions(['--strict', '--configs', 'vppnet,hand-checks']), {
      code: 'VPPNET_BENCH_USAGE',
      message: /--strict judges vppnet against hand/,
    });
    assert.equal(parseOptions(['--strict', '--configs', 'hand,vppnet']).strict, true);
  });
});
