/**
 * How the view follows a real etcd through what etcd does to its watchers: a member restored from
 * a backup (its revision behind the view's), a restart in the middle of a stream of writes,
 * large transactions and prefix deletes, credentials that fail. Each test ends with the view
 * holding what etcd holds, checked against a fresh listing.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { EtcdStore } from './etcd-store.js';
import { KeySchema } from './keys.js';
import { DatastoreView } from './view.js';
import type { KeyValueStore, StoreEvent, WriteOp } from './store.js';
import { ETCD_BACKEND } from './testing/store-backends.js';
import { EtcdServer } from './testing/etcd-server.js';
import { gatedWatch } from './testing/gated-watch.js';
import { ManualTimers } from '../util/testing/manual-timers.js';
import { until } from '../util/testing/until.js';

const skip = ETCD_BACKEND.skip;

const node = (n: number, locator = `fc00:${n}::/48`) =>
  JSON.stringify({
    underlay: { interface: 'memif1/0', address: `2001:db8::${n}/64`, gateway: '2001:db8::ff' },
    srv6: { locator },
  });

/** The view's node records as "name locator", sorted. */
const viewNodes = (v: DatastoreView): string[] =>
  [...v.nodes.values()].map((n) => `${n.name} ${n.locator.address}/${n.locator.len}`).sort();

/** etcd's node records under the schema as "name locator", sorted. */
async function storeNodes(store: EtcdStore, schema: KeySchema): Promise<string[]> {
  const listing = await store.list(schema.nodesRange);
  return listing.kvs
    .map((kv) => {
      const name = kv.key.slice(schema.nodesRange.key.length);
      return `${name} ${(JSON.parse(kv.value) as { srv6: { locator: string } }).srv6.locator}`;
    })
    .sort();
}

describe('the view following a real etcd', { skip }, () => {
  let server: EtcdServer;
  let dir: string;
  before(async () => {
    server = await EtcdServer.start();
    dir = mkdtempSync(path.join(tmpdir(), 'vppnet-etcd-follow-'));
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('etcd restored from a backup behind the view: the view re-lists and holds what etcd holds', async () => {
    const s = new KeySchema('/f/restore/');
    const writer = new EtcdStore({ endpoints: [server.endpoint] });
    const store = new EtcdStore({ endpoints: [server.endpoint], backoff: { initialMs: 20, maxMs: 200 } });
    const v = new DatastoreView(store, s, 'hv1', { backoff: { initialMs: 20, maxMs: 200 } });
    try {
      await writer.commit([
        { type: 'put', key: s.node('hv1'), value: node(1) },
        { type: 'put', key: s.node('hv2'), value: node(2) },
      ]);
      const snapshot = path.join(dir, 'restore.db');
      server.saveSnapshot(snapshot);
      // After the backup: hv3 at the snapshot's revision + 1, hv2 changed.
      await writer.commit([{ type: 'put', key: s.node('hv3'), value: node(3) }]);
      await writer.commit([{ type: 'put', key: s.node('hv2'), value: node(2, 'fc00:22::/48') }]);
      v.start();
      await until(() => viewNodes(v).length === 3, 'the view of the three nodes');
      assert.deepEqual(viewNodes(v), ['hv1 fc00:1::/48', 'hv2 fc00:22::/48', 'hv3 fc00:3::/48']);

      await server.restoreSnapshot(snapshot);
      // The operator writes on the restored etcd: hv3 again, another value, at the very revision
      // the view holds hv3's first value at.
      await writer.commit([{ type: 'put', key: s.node('hv3'), value: node(3, 'fc00:33::/48') }]);
      const want = await storeNodes(writer, s);
      assert.deepEqual(want, ['hv1 fc00:1::/48', 'hv2 fc00:2::/48', 'hv3 fc00:33::/48']);
      await until(
        () => JSON.stringify(viewNodes(v)) === JSON.stringify(want) && !v.health().stale,
        `the view to hold etcd's records (${want.join(', ')})`,
      );
    } finally {
      v.stop();
      await store.close();
      await writer.close();
    }
  });

  test('a 128-key transaction, a prefix delete and a put, delete, put of one key in one response: the view is etcd', async () => {
    const s = new KeySchema('/f/batch/');
    const writer = new EtcdStore({ endpoints: [server.endpoint] });
    const store = new EtcdStore({ endpoints: [server.endpoint] });
    // The endpoints watch waits at a gate while the writes happen: its catch-up then delivers
    // them together (etcd sends up to 1,000 revisions per response).
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const batches: (readonly StoreEvent[])[] = [];
    const endpoints = s.endpointsRange('vpc-a');
    const gated: KeyValueStore = {
      list: (r) => store.list(r),
      listPages: (r, onPage) => store.listPages(r, onPage),
      commit: (ops) => store.commit(ops),
      close: () => Promise.resolve(),
      watch: (r, from, h) => {
        if (r.key !== endpoints.key) return store.watch(r, from, h);
        const onEvents = (events: readonly StoreEvent[]): void => {
          batches.push(events);
          h.onEvents(events);
        };
        return gatedWatch(store, r, from, { ...h, onEvents }, gate);
      },
    };
    const v = new DatastoreView(gated, s, 'hv1');
    const ep = (ip: string) => s.endpoint('vpc-a', { address: ip, len: 32 });
    const on = (n: string) => JSON.stringify({ node: n });
    /** etcd's endpoints of vpc-a as "key node", and the view's. */
    const inStore = async () =>
      (await writer.list(endpoints)).kvs.map(
        (kv) => `${kv.key} ${(JSON.parse(kv.value) as { node: string }).node}`,
      );
    const inView = () => {
      const t = v.endpoints.get('vpc-a');
      return t ? [...t.keys()].map((k) => `${k} ${t.nodeOf(k)}`).sort() : [];
    };
    /** The writes of one round: each a transaction. */
    const round = async (node: string, other: string) => {
      const ips = Array.from({ length: 128 }, (_, i) => `10.0.1.${i}`);
      await writer.commit(ips.map((ip): WriteOp => ({ type: 'put', key: ep(ip), value: on(node) })));
      // 10.0.1.1, .10-.19, .100-.127: 39 deletes at one revision.
      await writer.commit([{ type: 'delete', key: ep('10.0.1.1').replace(/_32$/, ''), prefix: true }]);
      await writer.commit([{ type: 'put', key: ep('10.0.2.9'), value: on(other) }]);
      await writer.commit([{ type: 'delete', key: ep('10.0.2.9') }]);
      await writer.commit([{ type: 'put', key: ep('10.0.2.9'), value: on(node) }]);
      await writer.commit([{ type: 'put', key: ep('10.0.2.8'), value: on(node) }]);
      await writer.commit([{ type: 'delete', key: ep('10.0.2.8') }]);
    };
    try {
      await writer.commit([
        { type: 'put', key: s.node('hv1'), value: node(1) },
        { type: 'put', key: s.node('hv2'), value: node(2) },
        { type: 'put', key: s.node('hv3'), value: node(3) },
        {
          type: 'put',
          key: s.vpc('vpc-a'),
          value: JSON.stringify({ id: 10, subnets: ['10.0.0.0/16'], gateway: '10.0.0.1' }),
        },
        {
          type: 'put',
          key: s.port('hv1', 'vm1'),
          value: JSON.stringify({
            vpc: 'vpc-a',
            mac: '52:54:00:00:00:05',
            ip: '10.0.0.5',
            attach: { type: 'interface', name: 'tap0' },
          }),
        },
      ]);
      v.start();
      await v.whenSynced();
      assert.deepEqual(v.scope.includes(endpoints.key), true);
      await round('hv2', 'hv3');
      open();
      const caughtUp = await inStore();
      assert.equal(caughtUp.length, 128 - 39 + 1);
      await until(() => JSON.stringify(inView()) === JSON.stringify(caughtUp), 'the catch-up applied');
      const twice = ep('10.0.2.9');
      assert.ok(
        batches.some(
          (b) =>
            b
              .filter((e) => e.key === twice)
              .map((e) => e.type)
              .join() === 'put,delete,put',
        ),
        `one response held the put, delete and put of ${twice}`,
      );
      // The same live, each transaction its own response.
      await round('hv3', 'hv2');
      const live = await inStore();
      await until(() => JSON.stringify(inView()) === JSON.stringify(live), 'the live events applied');
      assert.ok(live.every((e) => e.endsWith(' hv3')));
      // What the agent derives from the view is what a fresh listing derives.
      const fresh = new DatastoreView(store, s, 'hv1');
      fresh.start();
      await until(
        () => fresh.health().synced && fresh.endpoints.get('vpc-a')?.size === live.length,
        'a fresh view',
      );
      assert.deepEqual(v.derive().config, fresh.derive().config);
      fresh.stop();
    } finally {
      open();
      v.stop();
      await store.close();
      await writer.close();
    }
  });

  test('a black-holed endpoint: stale, records kept, and caught up once it answers again', async () => {
    const s = new KeySchema('/f/hole/');
    // A proxy to etcd that, black-holing, accepts connections and never answers them.
    let hole = false;
    const sockets = new Set<net.Socket>();
    const proxy = net.createServer((c) => {
      sockets.add(c);
      c.on('error', () => undefined);
      if (hole) return;
      const up = net.connect(server.clientPort, '127.0.0.1');
      sockets.add(up);
      up.on('error', () => undefined);
      c.pipe(up).pipe(c);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const { port } = proxy.address() as net.AddressInfo;
    const writer = new EtcdStore({ endpoints: [server.endpoint] });
    const backoff = { initialMs: 50, maxMs: 500 };
    const store = new EtcdStore({ endpoints: [`http://127.0.0.1:${port}`], backoff, callTimeoutMs: 1000 });
    const v = new DatastoreView(store, s, 'hv1', { backoff });
    try {
      await writer.commit([{ type: 'put', key: s.node('hv1'), value: node(1) }]);
      v.start();
      await v.whenSynced();
      // The connection drops; every new one goes into the hole.
      hole = true;
      for (const c of sockets) c.destroy();
      sockets.clear();
      await until(
        () => v.health().stale && /not connected within 1000 ms/.test(v.health().lastError ?? ''),
        'stale, a watch having waited for a connection up to its deadline',
      );
      assert.deepEqual(viewNodes(v), ['hv1 fc00:1::/48'], 'the last good records stay');
      await writer.commit([{ type: 'put', key: s.node('hv2'), value: node(2) }]);
      hole = false;
      await until(
        () => viewNodes(v).length === 2 && !v.health().stale,
        'the view caught up once the endpoint answers',
      );
    } finally {
      v.stop();
      await store.close();
      await writer.close();
      for (const c of sockets) c.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  // Last: the etcd it runs against is replaced.
  test('another cluster on the same endpoint, already past the revision the view waits for: the view re-lists', async () => {
    const s = new KeySchema('/f/cluster/');
    const writer = new EtcdStore({ endpoints: [server.endpoint] });
    // The watches retry only when the test runs their timers: the new cluster is written first.
    const timers = new ManualTimers();
    const store = new EtcdStore({ endpoints: [server.endpoint], timers, callTimeoutMs: 2000 });
    const v = new DatastoreView(store, s, 'hv1', { backoff: { initialMs: 20, maxMs: 200 } });
    try {
      await writer.commit([{ type: 'put', key: s.node('hv1'), value: node(1) }]);
      await writer.commit([{ type: 'put', key: s.node('hv2'), value: node(2) }]);
      v.start();
      await until(() => viewNodes(v).length === 2, 'the view of the two nodes');
      const seen = (await writer.list(s.nodesRange)).revision;

      await server.replaceWithNewCluster('vppnet-test-other');
      await until(() => v.health().stale, 'the break');
      // The new cluster's history: past the view's revision, with other records.
      for (let i = 0; i <= seen; i++)
        await writer.commit([{ type: 'put', key: '/f/cluster-filler', value: String(i) }]);
      await writer.commit([
        { type: 'put', key: s.node('hv1'), value: node(1, 'fc00:11::/48') },
        { type: 'put', key: s.node('hv3'), value: node(3) },
      ]);
      const want = await storeNodes(writer, s);
      assert.deepEqual(want, ['hv1 fc00:11::/48', 'hv3 fc00:3::/48']);
      await until(
        () => {
          if (timers.armed.length > 0) timers.runNext();
          return JSON.stringify(viewNodes(v)) === JSON.stringify(want) && !v.health().stale;
        },
        `the view to hold the new cluster's records (${want.join(', ')})`,
      );
    } finally {
      v.stop();
      await store.close();
      await writer.close();
    }
  });
});

/** etcd's own count of the gRPC calls of `method` it has started (its /metrics). */
async function callsStarted(server: EtcdServer, method: string): Promise<number> {
  const text = await (await fetch(`${server.endpoint}/metrics`)).text();
  let total = 0;
  for (const m of text.matchAll(/^grpc_server_started_total\{([^}]*)\} (\d+)$/gm))
    if ((m[1] as string).includes(`grpc_method="${method}"`)) total += Number(m[2]);
  return total;
}

describe('the view following a real etcd with auth', { skip }, () => {
  let server: EtcdServer;
  const root = { user: 'root', password: 'rootpw' };
  const ctl = (args: string[], input?: string) =>
    execFileSync('etcdctl', ['--endpoints', server.endpoint, '--user', `root:${root.password}`, ...args], {
      env: { ...process.env, ETCDCTL_API: '3' },
      stdio: 'pipe',
      ...(input !== undefined && { input }),
    });
  before(async () => {
    server = await EtcdServer.start();
    execFileSync('etcdctl', ['--endpoints', server.endpoint, 'user', 'add', `root:${root.password}`], {
      env: { ...process.env, ETCDCTL_API: '3' },
      stdio: 'pipe',
    });
    execFileSync('etcdctl', ['--endpoints', server.endpoint, 'auth', 'enable'], {
      env: { ...process.env, ETCDCTL_API: '3' },
      stdio: 'pipe',
    });
  });
  after(async () => {
    await server?.stop();
  });

  test('etcd restarted during a stream of writes: every event once, in order, and the view ends as etcd', async () => {
    const s = new KeySchema('/f/restart/');
    const backoff = { initialMs: 20, maxMs: 200 };
    const writer = new EtcdStore({ endpoints: [server.endpoint], auth: root, callTimeoutMs: 2000 });
    const store = new EtcdStore({ endpoints: [server.endpoint], auth: root, backoff, callTimeoutMs: 2000 });
    const v = new DatastoreView(store, s, 'hv1', { backoff });
    // A watch on a client of its own: no other call of it fetches a new token after the restart.
    const watcher = new EtcdStore({ endpoints: [server.endpoint], auth: root, backoff, callTimeoutMs: 2000 });
    const events: StoreEvent[] = [];
    let ended: Error | undefined;
    let writing = true;
    let commits = 0;
    try {
      await writer.commit([{ type: 'put', key: s.node('hv1'), value: node(1) }]);
      v.start();
      await v.whenSynced();
      const from = (await watcher.list(s.nodesRange)).revision + 1;
      const w = watcher.watch(s.nodesRange, from, {
        onEvents: (e) => void events.push(...e),
        onEnd: (err) => void (ended = err),
      });
      // Puts and deletes of 20 nodes, each commit retried until etcd takes it.
      const writes = (async () => {
        for (let i = 2; writing; i++) {
          const n = 2 + (i % 20);
          const op =
            i % 7 === 0
              ? { type: 'delete' as const, key: s.node(`hv${n}`) }
              : { type: 'put' as const, key: s.node(`hv${n}`), value: node(n, `fc00:${i}::/48`) };
          for (;;) {
            try {
              await writer.commit([op]);
              commits++;
              break;
            } catch {
              if (!writing) return;
            }
          }
        }
      })();
      await until(() => commits >= 50, '50 commits before the restart');
      await server.kill();
      await until(() => v.health().stale, 'the view stale');
      await server.resume();
      const resumedAt = commits;
      await until(() => commits >= resumedAt + 50, '50 commits after the restart');
      writing = false;
      await writes;
      const listing = await writer.list(s.nodesRange);
      const want = await storeNodes(writer, s);
      await until(
        () =>
          events.at(-1)?.revision === listing.revision &&
          JSON.stringify(viewNodes(v)) === JSON.stringify(want) &&
          !v.health().stale,
        `the watch and the view at etcd's revision ${listing.revision}`,
      );
      w.cancel();
      assert.equal(ended, undefined, 'the watch never ended');
      for (let i = 1; i < events.length; i++)
        assert.ok(
          (events[i] as StoreEvent).revision > (events[i - 1] as StoreEvent).revision,
          `event ${i} after its predecessor: none twice, none out of order`,
        );
      // The events replayed on the listing the watch started from are etcd's state now.
      const replayed = new Map<string, string>([[s.node('hv1'), node(1)]]);
      for (const e of events)
        if (e.type === 'put') replayed.set(e.key, e.value);
        else replayed.delete(e.key);
      assert.deepEqual(
        [...replayed].sort(),
        listing.kvs.map((kv) => [kv.key, kv.value]),
        'no event lost',
      );
    } finally {
      writing = false;
      v.stop();
      await watcher.close();
      await store.close();
      await writer.close();
    }
  });

  test('a wrong password, then a role without read: stale naming the cause, records kept, retries with backoff', async () => {
    const s = new KeySchema('/f/creds/');
    ctl(['role', 'add', 'agent-role']);
    ctl(['role', 'grant-permission', 'agent-role', '--prefix=true', 'read', '/f/creds/']);
    ctl(['user', 'add', 'agent:agentpw']);
    ctl(['user', 'grant-role', 'agent', 'agent-role']);
    const writer = new EtcdStore({ endpoints: [server.endpoint], auth: root });
    const backoff = { initialMs: 100, maxMs: 400 };
    const store = new EtcdStore({
      endpoints: [server.endpoint],
      auth: { user: 'agent', password: 'agentpw' },
      backoff,
      callTimeoutMs: 2000,
    });
    const v = new DatastoreView(store, s, 'hv1', { backoff });
    /**
     * The calls of `method` etcd starts in one second: the view's two ranges (nodes, its ports)
     * retry at most every 200 ms each once the backoff is at its maximum (400 ms ±50 %); a retry
     * loop without backoff would make hundreds.
     */
    const perSecond = async (method: string): Promise<number> => {
      const before = await callsStarted(server, method);
      const t0 = Date.now();
      await until(() => Date.now() - t0 >= 1000, 'a one-second window', { everyMs: 50 });
      return (await callsStarted(server, method)) - before;
    };
    try {
      await writer.commit([{ type: 'put', key: s.node('hv1'), value: node(1) }]);
      v.start();
      await v.whenSynced();
      assert.deepEqual(viewNodes(v), ['hv1 fc00:1::/48']);

      // The password changes under the agent; a restart makes it authenticate again.
      ctl(['user', 'passwd', 'agent', '--interactive=false'], 'otherpw\n');
      await server.kill();
      await server.resume();
      await until(
        () => v.health().stale && /authentication failed/.test(v.health().lastError ?? ''),
        'stale, saying the authentication failed',
      );
      assert.deepEqual(viewNodes(v), ['hv1 fc00:1::/48'], 'the last good records stay');
      const authenticates = await perSecond('Authenticate');
      assert.ok(authenticates >= 1 && authenticates <= 15, `${authenticates} Authenticate calls in 1 s`);

      // The password is right again, but the role lost read on the prefix.
      ctl(['role', 'revoke-permission', 'agent-role', '--prefix=true', '/f/creds/']);
      ctl(['user', 'passwd', 'agent', '--interactive=false'], 'agentpw\n');
      await until(
        () => v.health().stale && /permission denied/.test(v.health().lastError ?? ''),
        'stale, saying permission is denied',
      );
      assert.deepEqual(viewNodes(v), ['hv1 fc00:1::/48'], 'the last good records stay');
      const ranges = await perSecond('Range');
      assert.ok(ranges >= 1 && ranges <= 15, `${ranges} Range calls in 1 s`);

      // Read granted again: the view catches up.
      ctl(['role', 'grant-permission', 'agent-role', '--prefix=true', 'read', '/f/creds/']);
      await writer.commit([{ type: 'put', key: s.node('hv2'), value: node(2) }]);
      await until(
        () => viewNodes(v).length === 2 && !v.health().stale,
        'the view back, with the record written meanwhile',
      );
    } finally {
      v.stop();
      await store.close();
      await writer.close();
    }
  });
});
