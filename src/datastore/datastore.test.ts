/**
 * The view and the record operations over a store: the in-memory one, and a real etcd (Debian's
 * etcd-server, started by the tests on a loopback port with a temporary data dir) where one is
 * installed. What the stores must do themselves is store.test.ts's.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BACKENDS, type BackendKind, type StoreBackend } from './testing/store-backends.js';
import { until } from '../util/testing/until.js';
import { KeySchema } from './keys.js';
import { DatastoreView } from './view.js';
import { ErrCompacted, type KeyValueStore } from './store.js';
import { importConfig, putRecordsFile } from './operations.js';
import { gatedWatch } from './testing/gated-watch.js';
import { parseConfig } from '../config/load.js';

const node = (n: number) =>
  JSON.stringify({
    underlay: { interface: 'memif1/0', address: `2001:db8::${n}/64`, gateway: '2001:db8::ff' },
    srv6: { locator: `fc00:${n}::/48` },
  });
const vpcA = JSON.stringify({ id: 10, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' });
const port = (ip: string, mac: string) =>
  JSON.stringify({ vpc: 'vpc-a', mac, ip, attach: { type: 'interface', name: `tap-${ip}` } });
const endpoint = (n: string) => JSON.stringify({ node: n });

for (const kind of BACKENDS)
  describe(`the view and the records on the ${kind.name} store`, { skip: kind.skip }, () =>
    viewAndRecordTests(kind),
  );

/** The suite on one store. */
function viewAndRecordTests(kind: BackendKind): void {
  let backend: StoreBackend;
  let store: KeyValueStore;
  const schema = new KeySchema('/t/v1/');
  before(async () => {
    backend = await kind.start();
    store = backend.client({ backoff: { initialMs: 20, maxMs: 200 }, callTimeoutMs: 2000 });
  });
  after(async () => {
    await store?.close();
    await backend?.stop();
  });

  test('a records file is written all or nothing', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vppnet-put-'));
    const file = path.join(dir, 'r.yaml');
    writeFileSync(
      file,
      'vpcs:\n  good: { id: 5, subnets: [10.5.0.0/24], gateway: 10.5.0.1 }\n  bad: { id: 6, subnets: [10.6.0.7/24], gateway: 10.6.0.1 }\n',
    );
    const s = new KeySchema('/t/tx/');
    await assert.rejects(putRecordsFile(store, s, file), /\/t\/tx\/vpcs\/bad: subnets\[0\]: host bits set/);
    assert.equal((await store.list(s.allRange)).kvs.length, 0, 'nothing written when one record is invalid');
    writeFileSync(
      file,
      'vpcs:\n  good: { id: 5, subnets: [10.5.0.0/24], gateway: 10.5.0.1 }\n  other: { id: 6, subnets: [10.6.0.0/24], gateway: 10.6.0.1 }\n',
    );
    await putRecordsFile(store, s, file);
    assert.deepEqual(
      (await store.list(s.allRange)).kvs.map((kv) => kv.key),
      ['/t/tx/vpcs/good', '/t/tx/vpcs/other'],
    );
    rmSync(dir, { recursive: true });
  });

  test("two nodes derive each other's remote routes, and follow a VM that moves", async () => {
    const ep = (ip: string) => schema.endpoint('vpc-a', { address: ip, len: 32 });
    await store.commit([
      { type: 'put', key: schema.node('hv1'), value: node(1) },
      { type: 'put', key: schema.node('hv2'), value: node(2) },
      { type: 'put', key: schema.vpc('vpc-a'), value: vpcA },
      { type: 'put', key: schema.port('hv1', 'vm1'), value: port('10.0.0.5', '52:54:00:00:00:05') },
      { type: 'put', key: schema.port('hv2', 'vm2'), value: port('10.0.0.7', '52:54:00:00:00:07') },
      { type: 'put', key: schema.port('hv2', 'vm3'), value: port('10.0.0.9', '52:54:00:00:00:09') },
      { type: 'put', key: ep('10.0.0.5'), value: endpoint('hv1') },
      { type: 'put', key: ep('10.0.0.7'), value: endpoint('hv2') },
      { type: 'put', key: ep('10.0.0.9'), value: endpoint('hv2') },
    ]);
    const hv1 = new DatastoreView(store, schema, 'hv1');
    const hv2 = new DatastoreView(store, schema, 'hv2');
    hv1.start();
    hv2.start();
    const routes = (v: DatastoreView) =>
      v.derive().config?.remoteRoutes.map((r) => `${r.prefix.address}/${r.prefix.len}>${r.sid}`) ?? [];
    const ports = (v: DatastoreView) => v.derive().config?.ports.map((p) => p.name) ?? [];
    await until(() => routes(hv1).length === 2 && routes(hv2).length === 1, 'both nodes derived');
    // Each steers to the other's End.DT4 SID for vpc-a: its locator + the VPC id 10.
    assert.deepEqual(routes(hv1), ['10.0.0.7/32>fc00:2::a', '10.0.0.9/32>fc00:2::a']);
    assert.deepEqual(routes(hv2), ['10.0.0.5/32>fc00:1::a']);
    assert.equal(hv1.derive().config?.vpcs[0]?.sid, 'fc00:1::a');
    assert.deepEqual(hv1.scope, [
      '/t/v1/endpoints/vpc-a/',
      '/t/v1/nodes/',
      '/t/v1/ports/hv1/',
      '/t/v1/vpcs/vpc-a',
    ]);

    // vm2 moves from hv2 to hv1: its port moves, its endpoint's node changes.
    await store.commit([
      { type: 'delete', key: schema.port('hv2', 'vm2') },
      { type: 'put', key: schema.port('hv1', 'vm2'), value: port('10.0.0.7', '52:54:00:00:00:07') },
      { type: 'put', key: ep('10.0.0.7'), value: endpoint('hv1') },
    ]);
    await until(() => routes(hv2).length === 2 && routes(hv1).length === 1, 'the move');
    assert.deepEqual(routes(hv1), ['10.0.0.9/32>fc00:2::a'], 'hv1 no longer steers vm2 away: it is local');
    assert.deepEqual(ports(hv1), ['vm1', 'vm2']);
    assert.deepEqual(
      routes(hv2),
      ['10.0.0.5/32>fc00:1::a', '10.0.0.7/32>fc00:1::a'],
      'hv2 re-points vm2 to hv1',
    );
    assert.deepEqual(ports(hv2), ['vm3']);

    // hv2's last port in vpc-a goes: its VPC watches, records and routes go with it.
    await store.commit([
      { type: 'delete', key: schema.port('hv2', 'vm3') },
      { type: 'delete', key: ep('10.0.0.9') },
    ]);
    await until(() => hv2.scope.length === 2 && routes(hv1).length === 0, 'the last port gone');
    assert.deepEqual(hv2.scope, ['/t/v1/nodes/', '/t/v1/ports/hv2/']);
    assert.equal(hv2.endpoints.size, 0);
    assert.equal(hv2.vpcs.size, 0);
    assert.deepEqual(hv2.derive().config?.vpcs, []);
    assert.deepEqual(routes(hv2), []);
    hv1.stop();
    hv2.stop();
  });

  test('an invalid record is rejected with its key and reason; the last good value stays', async () => {
    const s = new KeySchema('/t/inv/');
    await store.commit([
      { type: 'put', key: s.node('hv1'), value: node(1) },
      { type: 'put', key: s.vpc('vpc-a'), value: vpcA },
      { type: 'put', key: s.port('hv1', 'vm1'), value: port('10.0.0.5', '52:54:00:00:00:05') },
    ]);
    const rejections: string[] = [];
    const v = new DatastoreView(store, s, 'hv1', {
      onRejected: (key, problems) => rejections.push(`${key} ${problems[0]?.path}: ${problems[0]?.message}`),
    });
    v.start();
    // Synced, not merely configured: the node record alone already derives a config, and a port
    // listed after the bad write below would have no last good value to keep.
    await until(
      () => v.health().synced && v.derive().config?.ports[0]?.mac === '52:54:00:00:00:05',
      'first config with the port',
    );
    await store.commit([
      {
        type: 'put',
        key: s.port('hv1', 'vm1'),
        value: JSON.stringify({
          vpc: 'vpc-a',
          mac: 'nope',
          ip: '10.0.0.5',
          attach: { type: 'interface', name: 'x' },
        }),
      },
    ]);
    await until(() => v.rejectedTotal === 1, 'the rejection');
    assert.deepEqual(rejections, ['/t/inv/ports/hv1/vm1 mac: must be a MAC address like 52:54:00:12:34:56']);
    assert.equal(v.derive().config?.ports[0]?.mac, '52:54:00:00:00:05', 'the last good value stays');
    v.stop();
  });

  test('a compaction during a watch re-lists and diffs; nothing restarts', async () => {
    const s = new KeySchema('/t/cw/');
    await store.commit([
      { type: 'put', key: s.node('hv1'), value: node(1) },
      { type: 'put', key: s.node('hv2'), value: node(2) },
    ]);
    // The view's first watch of the node records waits at a gate while the store moves on and
    // compacts past the revision it asks for: the real watch then starts from a compacted one.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let lists = 0;
    const ended: Error[] = [];
    let gated = false;
    const gatedStore: KeyValueStore = {
      list: (r) => (lists++, store.list(r)),
      listPages: (r, onPage) => (lists++, store.listPages(r, onPage)),
      commit: (ops) => store.commit(ops),
      close: () => Promise.resolve(),
      watch: (r, from, h) => {
        if (gated || r.key !== s.nodesRange.key) return store.watch(r, from, h);
        gated = true;
        const onEnd = (err: Error): void => {
          ended.push(err);
          h.onEnd(err);
        };
        return gatedWatch(store, r, from, { ...h, onEnd }, gate);
      },
    };
    const v = new DatastoreView(gatedStore, s, 'hv1');
    v.start();
    await v.whenSynced();
    assert.deepEqual([...v.nodes.keys()].sort(), ['hv1', 'hv2']);
    const listsBefore = lists;
    await store.commit([{ type: 'delete', key: s.node('hv2') }]);
    const rev = await store.commit([{ type: 'put', key: s.node('hv3'), value: node(3) }]);
    await backend.compact(rev);
    open();
    await until(() => v.nodes.has('hv3') && !v.nodes.has('hv2'), 'the re-list after compaction');
    assert.ok(
      ended[0] instanceof ErrCompacted,
      `the gated watch ended with ErrCompacted, not ${String(ended[0])}`,
    );
    assert.ok(lists > listsBefore, 'the compacted range was listed again');
    assert.equal(v.health().stale, false);
    v.stop();
  });

  test('the store unreachable, then back: the view stays, says it is stale, then converges', async () => {
    const s = new KeySchema('/t/kill/');
    await store.commit([{ type: 'put', key: s.node('hv1'), value: node(1) }]);
    const v = new DatastoreView(store, s, 'hv1', { backoff: { initialMs: 20, maxMs: 200 } });
    v.start();
    await v.whenSynced();
    await backend.interrupt();
    await until(() => v.health().stale, 'stale');
    assert.ok(v.health().staleSince instanceof Date);
    assert.equal(v.nodes.size, 1, 'the last view stays while the store is down');
    await backend.restore();
    await store.commit([{ type: 'put', key: s.node('hv2'), value: node(2) }]);
    await until(() => v.nodes.size === 2 && !v.health().stale, 'convergence');
    v.stop();
  });

  test('import turns a node file into records, and refuses a remote route contradicting a locator', async () => {
    const s = new KeySchema('/t/imp/');
    const cfg = parseConfig(
      readFileSync(new URL('../../../examples/hypervisor-1.yaml', import.meta.url), 'utf8'),
    );
    // hv2 exists with locator fc00:2::/48: the example's remote SIDs fc00:2::a/fc00:2::14 match it.
    await store.commit([{ type: 'put', key: s.node('hv2'), value: node(2) }]);
    const ops = await importConfig(store, s, cfg);
    assert.ok(
      ops.some(
        (o) =>
          o.key === '/t/imp/endpoints/vpc-a/10.0.0.7_32' &&
          o.type === 'put' &&
          (JSON.parse(o.value) as { node: string }).node === 'hv2',
      ),
    );
    assert.ok(
      ops.some(
        (o) =>
          o.key === '/t/imp/endpoints/vpc-a/10.0.0.5_32' &&
          o.type === 'put' &&
          (JSON.parse(o.value) as { node: string }).node === 'hv1',
      ),
    );
    // A remote SID in hv2's locator but not hv2's SID for the VPC: contradicts hv2's record.
    const bad = {
      ...cfg,
      remoteRoutes: [
        { vpc: 'vpc-a', prefix: { address: '10.0.0.9', len: 32 }, family: 4 as const, sid: 'fc00:2::99' },
      ],
    };
    await assert.rejects(
      importConfig(store, s, bad),
      /remoteRoutes\[0\]\.sid: fc00:2::99 is in node hv2's locator, but hv2's SID for vpc-a is fc00:2::a/,
    );
    assert.equal(
      (await store.list(s.allRange)).kvs.length,
      1 + ops.length,
      'nothing written by the refused import',
    );
  });

  test('import turns a dual-stack file into records a view derives the same config from', async () => {
    const s = new KeySchema('/t/imp6/');
    const cfg = parseConfig(
      readFileSync(new URL('../../../examples/dual-stack.yaml', import.meta.url), 'utf8'),
    );
    await store.commit([{ type: 'put', key: s.node('hv2'), value: node(2) }]);
    const ops = await importConfig(store, s, cfg);
    const written = new Map(
      ops.map((o) => [o.key, o.type === 'put' ? (JSON.parse(o.value) as Record<string, unknown>) : null]),
    );
    assert.deepEqual(written.get('/t/imp6/vpcs/vpc-b'), {
      id: 20,
      table: 20,
      subnets: ['2001:db8:a::/64'],
      gatewayLinkLocal: 'fe80::1',
      mtu: 1460,
    });
    assert.deepEqual(written.get('/t/imp6/ports/hv1/vm2'), {
      vpc: 'vpc-b',
      mac: '52:54:00:61:0b:01',
      ip6: '2001:db8:a::10',
      attach: { type: 'veth', netns: 'vm2', ifname: 'eth0' },
    });
    assert.equal(written.get('/t/imp6/ports/hv1/vm1')?.ip6, '2001:db8:a:0:5054:ff:fe61:a01');
    for (const [key, n] of [
      ['/t/imp6/endpoints/vpc-a/10.0.0.5_32', 'hv1'],
      ['/t/imp6/endpoints/vpc-a/2001:db8:a:0:5054:ff:fe61:a01_128', 'hv1'],
      ['/t/imp6/endpoints/vpc-b/2001:db8:a::10_128', 'hv1'],
      ['/t/imp6/endpoints/vpc-a/2001:db8:a:0:5054:ff:fe62:a01_128', 'hv2'],
      ['/t/imp6/endpoints/vpc-b/2001:db8:a:0:5054:ff:fe62:b01_128', 'hv2'],
    ])
      assert.deepEqual(written.get(key as string), { node: n }, key);

    const view = new DatastoreView(store, s, 'hv1');
    view.start();
    await view.whenSynced();
    await until(() => view.endpoints.get('vpc-b')?.size === 2, 'the VPC scopes listed');
    const d = view.derive();
    view.stop();
    assert.deepEqual(d.problems, []);
    assert.deepEqual(d.config?.vpcs, cfg.vpcs, 'sid6, subnets6, gatewayLinkLocal as in the file');
    assert.deepEqual(d.config?.ports, cfg.ports);
    const byPrefix = (rs: readonly { prefix: { address: string } }[]) =>
      rs.map((r) => JSON.stringify(r)).sort();
    assert.deepEqual(byPrefix(d.config?.remoteRoutes ?? []), byPrefix(cfg.remoteRoutes));
  });

  test('import refuses an IPv6 route to a DT4 SID and a sid6 the records cannot derive', async () => {
    const s = new KeySchema('/t/imp6bad/');
    const cfg = parseConfig(
      readFileSync(new URL('../../../examples/dual-stack.yaml', import.meta.url), 'utf8'),
    );
    await store.commit([{ type: 'put', key: s.node('hv2'), value: node(2) }]);
    const route6 = {
      vpc: 'vpc-a',
      prefix: { address: '2001:db8:a::9', len: 128 },
      family: 6 as const,
      sid: 'fc00:2::a',
    };
    await assert.rejects(
      importConfig(store, s, { ...cfg, remoteRoutes: [route6] }),
      /remoteRoutes\[0\]\.sid: fc00:2::a is in node hv2's locator, but hv2's End\.DT6 SID for vpc-a is fc00:2::100:a/,
    );
    const vpcs = cfg.vpcs.map((v) => (v.name === 'vpc-b' ? { ...v, sid6: 'fc00:1::2:14' } : v));
    await assert.rejects(
      importConfig(store, s, { ...cfg, vpcs }),
      /vpcs\[1\]\.sid6: fc00:1::2:14 is not the locator \+ 2\^24 \+ the SID index of fc00:1::14 \(20\)/,
    );
    assert.equal((await store.list(s.allRange)).kvs.length, 1, 'nothing written by the refused imports');
  });

  test('a records file takes IPv6 endpoints in any spelling and stores them canonically', async () => {
    const s = new KeySchema('/t/put6/');
    const dir = mkdtempSync(path.join(tmpdir(), 'vppnet-put6-'));
    const file = path.join(dir, 'records.yaml');
    writeFileSync(
      file,
      [
        'vpcs:',
        '  vpc-b: { id: 20, subnets: [2001:db8:a::/64] }',
        'ports:',
        '  hv1:',
        '    vm2: { vpc: vpc-b, mac: 52:54:00:61:0b:01, ip6: 2001:db8:a::10, attach: { type: interface, name: x } }',
        'endpoints:',
        '  vpc-b:',
        '    2001:DB8:A:0:5054:FF:FE62:B01/128: hv2',
        '',
      ].join('\n'),
    );
    try {
      const ops = await putRecordsFile(store, s, file);
      assert.deepEqual(
        ops.map((o) => o.key),
        [
          '/t/put6/vpcs/vpc-b',
          '/t/put6/ports/hv1/vm2',
          '/t/put6/endpoints/vpc-b/2001:db8:a:0:5054:ff:fe62:b01_128',
        ],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
