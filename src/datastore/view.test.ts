/**
 * The view's own clock: a range whose list fails is listed again on the injected timers'
 * backoff, and staleness is dated by them. Over the in-memory store, whose outage is the test's
 * to begin and end.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ManualTimers } from '../util/testing/manual-timers.js';
import { KeySchema } from './keys.js';
import { MemoryKeyspace, MemoryStore } from './memory-store.js';
import type { KeyRange } from './keys.js';
import { StoreUnavailableError, type KeyValue } from './store.js';
import { DatastoreView, type ViewChange } from './view.js';

const node = JSON.stringify({
  underlay: { interface: 'memif1/0', address: '2001:db8::1/64', gateway: '2001:db8::ff' },
  srv6: { locator: 'fc00:1::/48' },
});

describe('the view on injected timers', () => {
  test('a failed list is retried on the backoff of the injected timers; staleness is dated by them', async () => {
    const schema = new KeySchema('/v/');
    const keyspace = new MemoryKeyspace();
    const store = new MemoryStore(keyspace);
    await store.commit([{ type: 'put', key: schema.node('hv1'), value: node }]);
    keyspace.beginOutage();
    const timers = new ManualTimers();
    const view = new DatastoreView(store, schema, 'hv1', { timers, backoff: { initialMs: 100, maxMs: 400 } });
    view.start();
    // Its two ranges (node records, its ports) failed to list: one retry each, 100 ms ± 50 %.
    await timers.whenArmed(2);
    assert.equal(view.health().stale, true);
    assert.equal(view.health().staleSince?.getTime(), timers.now());
    assert.equal(view.health().synced, false);
    for (const due of timers.dueIn) assert.ok(due >= 50 && due <= 150, `retry in ${due} ms`);

    // Still down at the retries: the next ones wait longer (200 ms ± 50 %).
    timers.advance(150);
    await timers.whenArmed(4);
    for (const due of timers.dueIn) assert.ok(due >= 100 && due <= 300, `second retry in ${due} ms`);

    keyspace.endOutage();
    timers.advance(300);
    await view.whenSynced();
    assert.deepEqual([...view.nodes.keys()], ['hv1']);
    assert.equal(view.health().stale, false);
    assert.equal(view.health().staleSince, undefined);
    assert.deepEqual(timers.armed, [], 'nothing armed once listed');
    view.stop();
  });

  test('a first listing that breaks after a page derives nothing from it; listed again, it is whole', async () => {
    const schema = new KeySchema('/v/');
    const nodes = ['hv1', 'hv2', 'hv3', 'hv4'];
    /** Lists the node records two a page, and breaks after the first page of the first listing. */
    class BreakingStore extends MemoryStore {
      broken = false;
      override async listPages(range: KeyRange, onPage: (kvs: readonly KeyValue[]) => void): Promise<number> {
        if (range.key !== schema.nodesRange.key) return super.listPages(range, onPage);
        const listing = await this.list(range);
        onPage(listing.kvs.slice(0, 2));
        if (!this.broken) {
          this.broken = true;
          throw new StoreUnavailableError('the connection broke after a page');
        }
        onPage(listing.kvs.slice(2));
        return listing.revision;
      }
    }
    const store = new BreakingStore(new MemoryKeyspace());
    await store.commit(nodes.map((n) => ({ type: 'put' as const, key: schema.node(n), value: node })));
    const timers = new ManualTimers();
    const told: ViewChange[][] = [];
    const view = new DatastoreView(store, schema, 'hv1', {
      timers,
      backoff: { initialMs: 100, maxMs: 400 },
      onChange: (changes) => told.push([...changes]),
    });
    view.start();
    await timers.whenArmed(1);
    assert.equal(view.health().synced, false, 'a range with a page missing is not listed');
    assert.deepEqual([...view.nodes.keys()], ['hv1', 'hv2'], 'the page that came is put');

    // Deleted before the retry: the relist is a diff, applied whole.
    await store.commit([
      { type: 'delete', key: schema.node('hv2') },
      { type: 'delete', key: schema.node('hv4') },
    ]);
    timers.advance(150);
    await view.whenSynced();
    assert.deepEqual([...view.nodes.keys()].sort(), ['hv1', 'hv3']);
    const last = told.at(-1) ?? [];
    assert.deepEqual(
      last.filter((c) => c.kind === 'node').map((c) => `${c.type} ${c.key}`),
      [`delete ${schema.node('hv2')}`, `put ${schema.node('hv3')}`],
    );
    view.stop();
  });
});
