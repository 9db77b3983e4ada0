import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ExecutionResult } from '../reconcile/executor.js';
import type { Op, Plan, Resource } from '../reconcile/resource.js';
import { summarize, summarizeFailure, type PassRun } from './pass-summary.js';

const run: PassRun = {
  triggers: ['drift'],
  startedAt: Date.UTC(2026, 0, 1),
  finishedAt: Date.UTC(2026, 0, 1) + 42,
  connection: 2,
};

/** Keys `port/n` belong to VM port `port`; the rest to the node. */
const portOfKey = (r: Resource): string | undefined =>
  r.key.includes('/') ? r.key.split('/')[0] : undefined;

function op(key: string): Op {
  return { action: 'create', key, resource: { kind: 'k', key } as unknown as Resource } as unknown as Op;
}

describe('summarize', () => {
  it('charges each problem to its VM port (the first one reported) or else to the node', () => {
    const plan = {
      ops: [op('a/1'), op('a/2'), op('node'), op('b/1')],
      pending: [{ resource: { kind: 'k', key: 'b/2' }, waitingFor: 'x' }],
    } as unknown as Plan;
    const executed = {
      applied: 1,
      failed: [
        { op: op('a/1'), error: new Error('boom') },
        { op: op('a/2'), error: new Error('again') },
        { op: op('node'), error: new Error('node-wide') },
      ],
      skipped: [],
    } as unknown as ExecutionResult;
    const s = summarize(plan, executed, 7, run, portOfKey);
    assert.equal(s.outcome, 'partial');
    assert.equal(s.durationMs, 42);
    assert.equal(s.startedAt, '2026-01-01T00:00:00.000Z');
    assert.deepEqual([s.planned, s.applied, s.failed, s.pending, s.nodeProblems], [4, 1, 3, 1, 1]);
    assert.deepEqual(s.brokenPorts, [
      { port: 'a', key: 'a/1', problem: 'create failed: boom' },
      { port: 'b', key: 'b/2', problem: 'waiting for x' },
    ]);
  });

  it('a plan-only pass with nothing pending is ok', () => {
    const s = summarize(
      { ops: [op('a')], pending: [] } as unknown as Plan,
      undefined,
      7,
      run,
      () => undefined,
    );
    assert.equal(s.outcome, 'ok');
    assert.equal(s.applied, 0);
  });

  it('a pass that threw is one node problem and keeps the ports broken before', () => {
    const broken = [{ port: 'a', key: 'a/1', problem: 'p' }];
    const s = summarizeFailure(new Error('no VPP'), run, broken);
    assert.equal(s.outcome, 'error');
    assert.equal(s.error, 'no VPP');
    assert.equal(s.nodeProblems, 1);
    assert.deepEqual(s.brokenPorts, broken);
  });
});
