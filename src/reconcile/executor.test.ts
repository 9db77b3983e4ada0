import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalEqual, type Descriptor } from './descriptor.js';
import { execute, OP_CHANNEL, type OpDiagnostic } from './executor.js';
import { plan } from './planner.js';
import type { Resource } from './resource.js';

function r(key: string, deps: string[] = []): Resource {
  return { kind: 'thing', key, deps, value: key };
}

/** A kind whose creates and deletes are logged and answer when the test says so. */
function gatedKind(): {
  kind: Descriptor<unknown, null>;
  log: string[];
  /** For each started op, the keys whose op had replied when it started. */
  repliedBefore: Map<string, string[]>;
  release(key: string, error?: Error): void;
  started(key: string): Promise<void>;
} {
  const log: string[] = [];
  const replied: string[] = [];
  const repliedBefore = new Map<string, string[]>();
  const answers = new Map<string, { resolve: () => void; reject: (e: Error) => void }>();
  const waiting = new Map<string, () => void>();
  const op = (action: string) => (_ctx: null, res: Resource) =>
    new Promise<void>((resolve, reject) => {
      log.push(`${action} ${res.key}`);
      repliedBefore.set(res.key, [...replied]);
      answers.set(res.key, { resolve, reject });
      waiting.get(res.key)?.();
    });
  return {
    kind: { kind: 'thing', equivalent: canonicalEqual, create: op('create'), delete: op('delete') },
    log,
    repliedBefore,
    release(key, error) {
      const a = answers.get(key);
      if (!a) throw new Error(`${key} has not started`);
      replied.push(key);
      if (error) a.reject(error);
      else a.resolve();
    },
    started: (key) =>
      answers.has(key) ? Promise.resolve() : new Promise<void>((res) => waiting.set(key, res)),
  };
}

describe('executor pipelining', () => {
  it('starts an op once its own dependencies replied, while an unrelated op of their level is still out', async () => {
    const k = gatedKind();
    const p = plan([r('slow'), r('table'), r('route', ['table'])], [], new Map([['thing', k.kind]]));
    const run = execute(p, new Map([['thing', k.kind]]), null);
    await k.started('table');
    k.release('table');
    // 'slow' has not replied, and 'route' (a level above it) starts anyway.
    await k.started('route');
    k.release('route');
    k.release('slow');
    const result = await run;
    assert.equal(result.applied, 3);
    assert.deepEqual(k.repliedBefore.get('route'), ['table']);
    // What others wait for goes first.
    assert.deepEqual(k.log, ['create table', 'create slow', 'create route']);
  });

  it('starts no op before every op it depends on replied', async () => {
    const k = gatedKind();
    const kinds = new Map([['thing', k.kind]]);
    const p = plan([r('a'), r('b'), r('c', ['a', 'b'])], [], kinds);
    const run = execute(p, kinds, null);
    await k.started('b');
    k.release('a');
    k.release('b');
    await k.started('c');
    k.release('c');
    assert.equal((await run).applied, 3);
    assert.deepEqual(k.repliedBefore.get('c'), ['a', 'b']);
  });

  it('deletes an object only after the deletes of what uses it, and keeps it when one failed', async () => {
    const k = gatedKind();
    const kinds = new Map([['thing', k.kind]]);
    const p = plan([], [r('table'), r('route1', ['table']), r('route2', ['table']), r('other')], kinds);
    const run = execute(p, kinds, null);
    await k.started('route1');
    await k.started('route2');
    await k.started('other');
    k.release('other');
    k.release('route1');
    k.release('route2', new Error('VPP said no'));
    const result = await run;
    assert.ok(!k.log.includes('delete table'), 'table deleted although route2 still uses it');
    assert.deepEqual(
      result.skipped.map((s) => [s.op.key, s.reason]),
      [['table', 'kept: deleting route2 failed']],
    );
    assert.equal(result.applied, 2);
  });

  it('finishes the deletes before the first create', async () => {
    const k = gatedKind();
    const kinds = new Map([['thing', k.kind]]);
    const p = plan([r('new')], [r('old')], kinds);
    const run = execute(p, kinds, null);
    await k.started('old');
    k.release('old');
    await k.started('new');
    k.release('new');
    assert.equal((await run).applied, 2);
    assert.deepEqual(k.repliedBefore.get('new'), ['old']);
  });

  it('starts nothing once shouldStop says so, and reports the rest as stopped', async () => {
    const created: string[] = [];
    let stop = false;
    const kind: Descriptor<unknown, null> = {
      kind: 'thing',
      equivalent: canonicalEqual,
      create: (_ctx, res) => {
        created.push(res.key);
        stop = true;
        return Promise.resolve();
      },
      delete: () => Promise.resolve(),
    };
    const kinds = new Map([['thing', kind]]);
    const p = plan([r('a'), r('b'), r('c', ['a'])], [], kinds);
    const result = await execute(p, kinds, null, { shouldStop: () => stop });
    assert.deepEqual(created, ['a']);
    assert.deepEqual(result.skipped.map((s) => [s.op.key, s.reason]).sort(), [
      ['b', 'stopped'],
      ['c', 'stopped'],
    ]);
  });

  it('starts with the adaptive window at its minimum, and sends the rest as replies come', async () => {
    const k = gatedKind();
    const kinds = new Map([['thing', k.kind]]);
    const keys = Array.from({ length: 20 }, (_, i) => `k${String(i).padStart(2, '0')}`);
    const run = execute(
      plan(
        keys.map((key) => r(key)),
        [],
        kinds,
      ),
      kinds,
      null,
      {
        adaptiveWindow: { min: 8 },
      },
    );
    await k.started('k07');
    await new Promise((res) => setImmediate(res));
    assert.equal(k.log.length, 8, 'no more than the window in flight before a reply');
    k.release('k00');
    await k.started('k08');
    assert.equal(k.log.length, 9);
    for (const key of keys.slice(1)) {
      await k.started(key);
      k.release(key);
    }
    assert.equal((await run).applied, 20);
  });

  it('fails the run on an op of a kind it does not know', async () => {
    const p = plan([r('a')], [], new Map([['thing', gatedKind().kind]]));
    await assert.rejects(execute(p, new Map(), null), /no descriptor for kind thing/);
  });

  it('counts an update that cannot run as failed, not applied', async () => {
    const kind: Descriptor<unknown, null> = {
      kind: 'thing',
      equivalent: canonicalEqual,
      create: () => Promise.resolve(),
      delete: () => Promise.resolve(),
    };
    const resource = r('a');
    const result = await execute(
      {
        ops: [{ action: 'update', kind: 'thing', key: 'a', resource }],
        pending: [],
        unchanged: 0,
      } as unknown as Parameters<typeof execute>[0],
      new Map([['thing', kind]]),
      null,
    );
    assert.equal(result.applied, 0);
    assert.match(result.failed[0]?.error.message ?? '', /a: update without an update for kind thing/);
  });
});

describe('the finished-op channel', () => {
  const kind: Descriptor<unknown, null> = {
    kind: 'thing',
    equivalent: canonicalEqual,
    create: (_ctx, res) => (res.key === 'bad' ? Promise.reject(new Error('refused')) : Promise.resolve()),
    delete: () => Promise.resolve(),
  };
  const kinds = new Map([['thing', kind]]);
  /** Runs a plan of two creates (one fails) and counts the reads of the ops' keys. */
  async function run(subscriber?: (d: OpDiagnostic) => void): Promise<number> {
    const p = plan([r('good'), r('bad')], [], kinds);
    let keyReads = 0;
    for (const op of p.ops) {
      const key = op.key;
      Object.defineProperty(op, 'key', {
        get: () => {
          keyReads++;
          return key;
        },
      });
    }
    if (subscriber) OP_CHANNEL.subscribe(subscriber);
    try {
      await execute(p, kinds, null);
    } finally {
      if (subscriber) OP_CHANNEL.unsubscribe(subscriber);
    }
    return keyReads;
  }

  it('publishes each op with its action, kind, key and outcome', async () => {
    const seen: [string, string, string, string][] = [];
    await run((d) => seen.push([d.action, d.kind, d.key, d.outcome]));
    assert.deepEqual(seen.sort(), [
      ['create', 'thing', 'bad', 'failed'],
      ['create', 'thing', 'good', 'ok'],
    ]);
  });

  it('builds no key for a subscriber that does not read it (a bulk op builds its key per read)', async () => {
    const withoutSubscriber = await run();
    const outcomes: string[] = [];
    const withCounter = await run((d) => outcomes.push(`${d.action} ${d.kind} ${d.outcome}`));
    assert.equal(outcomes.length, 2);
    assert.equal(withCounter, withoutSubscriber);
  });
});
