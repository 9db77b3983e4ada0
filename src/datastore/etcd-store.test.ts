/**
 * What only the etcd client does (the KeyValueStore contract is store.test.ts's): TLS with a client
 * certificate, a user and password with its token, failover between endpoints, and its watches'
 * reconnect on the injected timers. Against real etcds (Debian's etcd-server) started by the
 * suites on loopback ports.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EtcdStore } from './etcd-store.js';
import { StoreUnavailableError, type StoreEvent } from './store.js';
import { ETCD_BACKEND } from './testing/store-backends.js';
import { EtcdServer, freePort } from './testing/etcd-server.js';
import { ManualTimers } from '../util/testing/manual-timers.js';
import { until } from '../util/testing/until.js';

const skip = ETCD_BACKEND.skip;

describe('the etcd client on one etcd', { skip }, () => {
  let server: EtcdServer;
  before(async () => {
    server = await EtcdServer.start();
  });
  after(async () => {
    await server?.stop();
  });

  test('of two endpoints, an unreachable one fails a call as unavailable and the next goes to the other', async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const store = new EtcdStore({ endpoints: [dead, server.endpoint], callTimeoutMs: 300 });
    try {
      await assert.rejects(store.list({ key: '/fo/', prefix: true }), StoreUnavailableError);
      const rev = await store.commit([{ type: 'put', key: '/fo/a', value: '1' }]);
      assert.equal((await store.list({ key: '/fo/', prefix: true })).revision, rev);
    } finally {
      await store.close();
    }
  });

  test("a listing in pages: each handed over as it comes, in key order, all at the first page's revision", async () => {
    const writer = new EtcdStore({ endpoints: [server.endpoint] });
    const store = new EtcdStore({ endpoints: [server.endpoint], pageSize: 10 });
    try {
      const keys = Array.from({ length: 25 }, (_, i) => `/lp/${String(i).padStart(2, '0')}`);
      const listedAt = await writer.commit(keys.map((key) => ({ type: 'put' as const, key, value: 'old' })));
      const pages: string[][] = [];
      const values = new Map<string, string>();
      const revision = await store.listPages({ key: '/lp/', prefix: true }, (kvs) => {
        pages.push(kvs.map((kv) => kv.key));
        for (const kv of kvs) values.set(kv.key, kv.value);
        // Written between the pages: the later pages are still read at the first one's revision.
        if (pages.length === 1)
          void writer.commit([
            { type: 'put', key: '/lp/24', value: 'new' },
            { type: 'put', key: '/lp/99', value: 'new' },
          ]);
      });
      assert.equal(revision, listedAt);
      assert.deepEqual(pages, [keys.slice(0, 10), keys.slice(10, 20), keys.slice(20)]);
      assert.equal(values.get('/lp/24'), 'old');
      assert.equal(values.has('/lp/99'), false);
    } finally {
      await store.close();
      await writer.close();
    }
  });

  test('a listing whose reader throws rejects with its error, however many pages were left', async () => {
    const writer = new EtcdStore({ endpoints: [server.endpoint] });
    const store = new EtcdStore({ endpoints: [server.endpoint], pageSize: 2 });
    try {
      await writer.commit(
        ['a', 'b', 'c', 'd', 'e'].map((k) => ({ type: 'put' as const, key: `/lt/${k}`, value: '1' })),
      );
      let pages = 0;
      await assert.rejects(
        store.listPages({ key: '/lt/', prefix: true }, () => {
          pages++;
          throw new Error('the reader refuses');
        }),
        /the reader refuses/,
      );
      assert.equal(pages, 1);
      // The page asked for ahead was dropped, not left failing: the client still lists.
      assert.equal((await store.list({ key: '/lt/', prefix: true })).kvs.length, 5);
    } finally {
      await store.close();
      await writer.close();
    }
  });

  test("a transaction beyond etcd's limits is refused naming the flags that raise them", async () => {
    const store = new EtcdStore({ endpoints: [server.endpoint] });
    try {
      const many = Array.from({ length: 129 }, (_, i) => ({
        type: 'put' as const,
        key: `/mt/${i}`,
        value: '1',
      }));
      await assert.rejects(
        store.commit(many),
        /129 operations in one transaction exceed this etcd's --max-txn-ops or --max-request-bytes; raise them/,
      );
    } finally {
      await store.close();
    }
  });

  test("a broken watch reconnects on the injected timers' backoff", async () => {
    const timers = new ManualTimers();
    const store = new EtcdStore({
      endpoints: [server.endpoint],
      timers,
      backoff: { initialMs: 200, maxMs: 400 },
      callTimeoutMs: 2000,
    });
    try {
      const from = (await store.list({ key: '/rt/', prefix: true })).revision + 1;
      const events: StoreEvent[] = [];
      let connects = 0;
      let disconnects = 0;
      const w = store.watch({ key: '/rt/', prefix: true }, from, {
        onEvents: (e) => void events.push(...e),
        onConnect: () => void connects++,
        onDisconnect: () => void disconnects++,
        onEnd: (err) => assert.fail(err),
      });
      await until(() => connects === 1, 'the watch');
      assert.deepEqual(timers.armed, [], 'nothing armed while connected');
      await server.kill();
      await until(() => disconnects === 1, 'the break');
      // One retry armed, at the first delay ±50 % jitter; nothing is tried until it runs.
      assert.equal(timers.armed.length, 1);
      const [due] = timers.dueIn;
      assert.ok(due !== undefined && due >= 100 && due <= 300, `first retry in ${due} ms`);
      await server.resume();
      // A retry may find the channel still reconnecting (grpc-js's own backoff, on its own clock)
      // and fail again: each failure arms the next retry, and only the test runs them.
      await until(() => {
        if (connects === 2) return true;
        if (timers.armed.length > 0) timers.runNext();
        return false;
      }, 'reconnected by the retries the test ran');
      assert.equal(timers.armedTotal, disconnects, 'each break armed one retry on the injected timers');
      const rev = await store.commit([{ type: 'put', key: '/rt/a', value: '1' }]);
      await until(() => events.length === 1, 'the event after the reconnect');
      assert.equal(events[0]?.revision, rev);
      w.cancel();
      assert.deepEqual(timers.armed, []);
    } finally {
      await store.close();
    }
  });
});

describe('etcd with TLS', { skip }, () => {
  let dir: string;
  let server: EtcdServer;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'vppnet-etcd-tls-'));
    const f = (n: string) => path.join(dir, n);
    const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    ssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '1',
      '-subj',
      '/CN=vppnet-test-ca',
    );
    for (const [name, ext] of [
      ['server', 'subjectAltName=IP:127.0.0.1'],
      ['client', 'extendedKeyUsage=clientAuth'],
    ] as const) {
      ssl(
        'req',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        `${name}.key`,
        '-out',
        `${name}.csr`,
        '-subj',
        `/CN=${name}`,
      );
      writeFileSync(f(`${name}.ext`), `${ext}\n`);
      ssl(
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        'ca.pem',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        `${name}.pem`,
        '-days',
        '1',
        '-extfile',
        `${name}.ext`,
      );
    }
    server = await EtcdServer.start({
      tls: {
        certFile: f('server.pem'),
        keyFile: f('server.key'),
        caFile: f('ca.pem'),
        ca: readFileSync(f('ca.pem')),
        clientCert: readFileSync(f('client.pem')),
        clientKey: readFileSync(f('client.key')),
      },
    });
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a client with the CA and a client certificate lists and writes; one without is refused', async () => {
    const tls = {
      ca: readFileSync(path.join(dir, 'ca.pem')),
      cert: readFileSync(path.join(dir, 'client.pem')),
      key: readFileSync(path.join(dir, 'client.key')),
    };
    const good = new EtcdStore({ endpoints: [server.endpoint], tls });
    const rev = await good.commit([{ type: 'put', key: '/tls/a', value: 'x' }]);
    const listing = await good.list({ key: '/tls/', prefix: true });
    assert.equal(listing.revision, rev);
    assert.deepEqual(
      listing.kvs.map((kv) => kv.value),
      ['x'],
    );
    await good.close();
    const noCert = new EtcdStore({ endpoints: [server.endpoint], tls: { ca: tls.ca }, callTimeoutMs: 2000 });
    await assert.rejects(noCert.list({ key: '/tls/', prefix: true }));
    await noCert.close();
  });
});

describe(
  'etcd with user and password',
  { skip: skip || (existsSync('/usr/bin/etcdctl') ? false : 'no etcdctl (apt-get install etcd-client)') },
  () => {
    let server: EtcdServer;
    before(async () => {
      server = await EtcdServer.start();
      const ctl = (...args: string[]) =>
        execFileSync('etcdctl', ['--endpoints', server.endpoint, ...args], {
          env: { ...process.env, ETCDCTL_API: '3' },
          stdio: 'pipe',
        });
      ctl('user', 'add', 'root:rootpw');
      ctl('auth', 'enable');
    });
    after(async () => {
      await server?.stop();
    });

    test('the right password writes, lists and watches; a wrong one is refused', async () => {
      const good = new EtcdStore({
        endpoints: [server.endpoint],
        auth: { user: 'root', password: 'rootpw' },
      });
      const rev = await good.commit([{ type: 'put', key: '/auth/a', value: 'x' }]);
      assert.equal((await good.list({ key: '/auth/', prefix: true })).revision, rev);
      const events = await new Promise<readonly StoreEvent[]>((resolve, reject) => {
        const w = good.watch({ key: '/auth/', prefix: true }, rev, {
          onEvents: (ev) => {
            w.cancel();
            resolve(ev);
          },
          onEnd: reject,
        });
      });
      assert.deepEqual(
        events.map((e) => e.key),
        ['/auth/a'],
      );
      await good.close();
      const bad = new EtcdStore({ endpoints: [server.endpoint], auth: { user: 'root', password: 'wrong' } });
      await assert.rejects(bad.list({ key: '/auth/', prefix: true }), /authentication failed/);
      await bad.close();
    });
  },
);
