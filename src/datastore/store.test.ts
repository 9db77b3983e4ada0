/**
 * The KeyValueStore contract (store.ts), the same assertions against each implementation: etcd
 * (etcd-store.ts, on a real etcd started by the suite, where one is installed) and the in-memory
 * store (memory-store.ts), so that what the view and the agent's tests see of the memory store is
 * what they would see of etcd.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { until } from '../util/testing/until.js';
import {
  ErrCompacted,
  StoreUnavailableError,
  type KeyValueStore,
  type StoreEvent,
  type Watch,
} from './store.js';
import { BACKENDS, type StoreBackend } from './testing/store-backends.js';

/** What a watch was told. */
class Recorder {
  readonly events: StoreEvent[] = [];
  readonly disconnects: Error[] = [];
  connects = 0;
  ended: Error | undefined;
  readonly watch: Watch;
  constructor(store: KeyValueStore, key: string, fromRevision: number) {
    this.watch = store.watch({ key, prefix: true }, fromRevision, {
      onEvents: (events) => void this.events.push(...events),
      onConnect: () => void this.connects++,
      onDisconnect: (err) => void this.disconnects.push(err),
      onEnd: (err) => void (this.ended = err),
    });
  }
  /** The events as "put key=value@revision" and "delete key@revision". */
  get seen(): string[] {
    return this.events.map((e) =>
      e.type === 'put' ? `put ${e.key}=${e.value}@${e.revision}` : `delete ${e.key}@${e.revision}`,
    );
  }
  async untilSeen(count: number): Promise<string[]> {
    await until(() => this.events.length >= count || this.ended !== undefined, `${count} events`);
    return this.seen;
  }
}

const put = (key: string, value: string) => ({ type: 'put' as const, key, value });

for (const kind of BACKENDS) {
  describe(`the KeyValueStore contract on the ${kind.name} store`, { skip: kind.skip }, () => {
    let backend: StoreBackend;
    let store: KeyValueStore;
    const watches: Watch[] = [];
    const record = (key: string, from: number, on = store): Recorder => {
      const r = new Recorder(on, key, from);
      watches.push(r.watch);
      return r;
    };
    before(async () => {
      backend = await kind.start();
      store = backend.client({ backoff: { initialMs: 20, maxMs: 200 }, callTimeoutMs: 2000 });
    });
    after(async () => {
      for (const w of watches) w.cancel();
      await store?.close();
      await backend?.stop();
    });

    test('a transaction is one revision: its events and keys carry it, and a list is consistent at it', async () => {
      const r1 = await store.commit([put('/c/rev/a', '1'), put('/c/rev/b', '1')]);
      const listing = await store.list({ key: '/c/rev/', prefix: true });
      assert.equal(listing.revision, r1);
      assert.deepEqual(listing.kvs, [
        { key: '/c/rev/a', value: '1', modRevision: r1 },
        { key: '/c/rev/b', value: '1', modRevision: r1 },
      ]);
      const r2 = await store.commit([put('/c/rev/a', '2')]);
      assert.equal(r2, r1 + 1);
      assert.equal(
        await store.commit([{ type: 'delete', key: '/c/rev/none' }]),
        r2,
        'a transaction that changes nothing leaves the revision alone',
      );
      assert.deepEqual(await record('/c/rev/', r1).untilSeen(3), [
        `put /c/rev/a=1@${r1}`,
        `put /c/rev/b=1@${r1}`,
        `put /c/rev/a=2@${r2}`,
      ]);
    });

    test('a list holds its range only: a prefix its keys, a key itself, in byte order', async () => {
      const keys = ['/c/ls/😀', '/c/ls/\uffff', '/c/ls/é', '/c/ls/ab', '/c/ls/a/x', '/c/ls/a', '/c/lsx'];
      await store.commit(keys.map((k) => put(k, `ü ${k}`)));
      const listing = await store.list({ key: '/c/ls/', prefix: true });
      // UTF-8 byte order: é (c3 a9) < U+FFFF (ef bf bf) < 😀 (f0 9f 98 80); UTF-16 would put 😀 first.
      assert.deepEqual(
        listing.kvs.map((kv) => kv.key),
        ['/c/ls/a', '/c/ls/a/x', '/c/ls/ab', '/c/ls/é', '/c/ls/\uffff', '/c/ls/😀'],
      );
      assert.equal(listing.kvs[5]?.value, 'ü /c/ls/😀');
      assert.deepEqual(
        (await store.list({ key: '/c/ls/a', prefix: false })).kvs.map((kv) => kv.key),
        ['/c/ls/a'],
      );
      assert.deepEqual((await store.list({ key: '/c/ls/nothing/', prefix: true })).kvs, []);
    });

    test('list then watch from revision + 1 loses no event written in between', async () => {
      await store.commit([put('/c/lw/a', '1')]);
      const listing = await store.list({ key: '/c/lw/', prefix: true });
      assert.deepEqual(
        listing.kvs.map((kv) => kv.key),
        ['/c/lw/a'],
      );
      // Written after the list, before the watch exists.
      for (let i = 0; i < 50; i++) await store.commit([put(`/c/lw/k${i}`, String(i))]);
      const w = record('/c/lw/', listing.revision + 1);
      await w.untilSeen(50);
      assert.deepEqual(
        w.events.map((e) => e.key),
        Array.from({ length: 50 }, (_, i) => `/c/lw/k${i}`),
      );
      assert.ok(w.events.every((e, i) => i === 0 || e.revision > (w.events[i - 1] as StoreEvent).revision));
      assert.equal(w.watch.nextRevision, (w.events[49] as StoreEvent).revision + 1);
      assert.ok(w.connects >= 1, 'told it is connected');
    });

    test('a prefix delete removes exactly the keys under it, an event each at one revision', async () => {
      await store.commit([put('/c/del/x/1', '1'), put('/c/del/x/2', '2'), put('/c/del/xy', '3')]);
      const from = (await store.list({ key: '/c/del/', prefix: true })).revision + 1;
      const w = record('/c/del/', from);
      const rev = await store.commit([{ type: 'delete', key: '/c/del/x/', prefix: true }]);
      assert.deepEqual(await w.untilSeen(2), [`delete /c/del/x/1@${rev}`, `delete /c/del/x/2@${rev}`]);
      assert.deepEqual(
        (await store.list({ key: '/c/del/', prefix: true })).kvs.map((kv) => kv.key),
        ['/c/del/xy'],
      );
    });

    test('a transaction is all or nothing: refused whole, nothing written', async () => {
      const empty = async () => (await store.list({ key: '/c/tx/', prefix: true })).kvs.length === 0;
      await store.commit([put('/c/tx-before', '1')]);
      await assert.rejects(
        store.commit([put('/c/tx/a', '1'), put('/c/tx/a', '2')]),
        /duplicate key given in txn request/,
      );
      assert.ok(await empty());
      await assert.rejects(
        store.commit([put('/c/tx/b', '1'), { type: 'delete', key: '/c/tx/', prefix: true }]),
        /duplicate key given in txn request/,
        'a put inside a delete range of the same transaction',
      );
      assert.ok(await empty());
      // More than etcd's --max-txn-ops (128 by default): refused whole, saying so.
      const many = Array.from({ length: 129 }, (_, i) => put(`/c/tx/m${i}`, '1'));
      await assert.rejects(
        store.commit(many),
        /too many operations in txn request: 129 operations in one transaction exceed/,
      );
      assert.ok(await empty());
      assert.equal((await store.commit(many.slice(0, 128))) > 0, true, '128 operations are one transaction');
    });

    test('a watch from a compacted revision ends with ErrCompacted; from the compaction on it delivers', async () => {
      const first = await store.commit([put('/c/cmp/a', '1')]);
      const last = await store.commit([put('/c/cmp/a', '2')]);
      await backend.compact(last);
      const old = record('/c/cmp/', first);
      await until(() => old.ended !== undefined, 'the end');
      assert.ok(old.ended instanceof ErrCompacted, String(old.ended));
      assert.equal(old.ended.compactRevision, last);
      assert.equal(old.ended.requestedRevision, first);
      assert.deepEqual(old.events, []);
      assert.deepEqual(await record('/c/cmp/', last).untilSeen(1), [`put /c/cmp/a=2@${last}`]);
    });

    test('a cancelled watch hears nothing more; a closed client cancels its watches and refuses calls', async () => {
      const from = (await store.list({ key: '/c/cancel/', prefix: true })).revision + 1;
      const cancelled = record('/c/cancel/', from);
      cancelled.watch.cancel();
      const other = backend.client();
      const closing = record('/c/cancel/', from, other);
      await until(() => closing.connects > 0, 'the watch of the client to close');
      await other.close();
      const live = record('/c/cancel/', from);
      const rev = await store.commit([put('/c/cancel/a', '1')]);
      assert.deepEqual(await live.untilSeen(1), [`put /c/cancel/a=1@${rev}`]);
      assert.deepEqual(cancelled.events, []);
      assert.deepEqual(closing.events, []);
      assert.equal(closing.ended, undefined, 'a cancelled watch does not end');
      await assert.rejects(other.list({ key: '/c/cancel/', prefix: true }), StoreUnavailableError);
      await assert.rejects(other.commit([put('/c/cancel/b', '1')]), StoreUnavailableError);
    });

    // Last: the store goes away and comes back.
    test('an outage: calls fail as unavailable, watches say so, then resume from their next revision', async () => {
      const client = backend.client({ backoff: { initialMs: 20, maxMs: 200 }, callTimeoutMs: 500 });
      try {
        const from = (await client.list({ key: '/c/out/', prefix: true })).revision + 1;
        const w = record('/c/out/', from, client);
        const r1 = await client.commit([put('/c/out/a', '1')]);
        await w.untilSeen(1);
        await backend.interrupt();
        await until(() => w.disconnects.length > 0, 'the watch broken');
        await assert.rejects(client.list({ key: '/c/out/', prefix: true }), StoreUnavailableError);
        await assert.rejects(client.commit([put('/c/out/b', '1')]), StoreUnavailableError);
        await backend.restore();
        const r2 = await client.commit([put('/c/out/b', '2')]);
        const r3 = await client.commit([{ type: 'delete', key: '/c/out/a' }]);
        assert.deepEqual(
          await w.untilSeen(3),
          [`put /c/out/a=1@${r1}`, `put /c/out/b=2@${r2}`, `delete /c/out/a@${r3}`],
          'nothing lost, nothing twice',
        );
        assert.ok(w.connects >= 2, 'told it is connected again');
        assert.ok(w.disconnects.every((e) => e instanceof StoreUnavailableError || 'code' in e));
        assert.equal(w.ended, undefined);
      } finally {
        await client.close();
      }
    });
  });
}
