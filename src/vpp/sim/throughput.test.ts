/**
 * Volume: the simulator must stay correct with pipelined clients and big tables (benchmarks and
 * reconciler tests run 100k routes and 10k-entry dumps against it). How fast it is, is measured by
 * `npm run bench:sim` (bench/sim), not asserted here: a unit test does not assert a speed.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodeMessage, encodeMessage } from '../codec/message-codec.js';
import { msg } from '../messages/index.js';
import { RawClient } from '../../../test/support/raw-client.js';
import { permissiveHost, VppSimulator } from './index.js';

let dir = '';
let sim: VppSimulator;
let c: RawClient;

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-sim-volume-'));
  sim = await VppSimulator.start({
    socketPath: path.join(dir, 'api.sock'),
    host: permissiveHost,
    vhostNet: false,
  });
  c = await RawClient.connect(sim.socketPath);
  await c.handshake();
});

after(async () => {
  c.close();
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

describe('volume', () => {
  it('answers 10k pipelined control_pings in order', async () => {
    const id = c.idOf(msg.control_ping);
    const base = c.received.length;
    const frames = Buffer.concat(
      Array.from({ length: 10_000 }, (_, i) =>
        encodeMessage(msg.control_ping, id, {}, { context: i + 1, clientIndex: c.clientIndex }),
      ),
    );
    c.sendRaw(frames);
    const got = (await c.waitForCount(base + 10_000, 10_000)).slice(base);
    got.forEach((p, i) => assert.equal(decodeMessage(msg.control_ping_reply, p).context, i + 1));
  });

  it('adds 10k routes pipelined and dumps them (10k+ details) in one stream', async () => {
    await c.call(msg.ip_table_add_del, { is_add: true, table: { table_id: 7 } }, 1);
    const base = c.received.length;
    c.sendRaw(c.routeAddFrames(7, 10_000, 0, 1000));
    await c.waitForCount(base + 10_000, 20_000);
    const out = await c.dump(msg.ip_route_dump, { table: { table_id: 7 } }, 99);
    const details = out.slice(0, -1).map((p) => decodeMessage(msg.ip_route_details, p));
    // the table's 5 special entries and the 10k routes
    assert.equal(details.length, 10_005);
    assert.equal(new Set(details.map((d) => d.route.stats_index)).size, 10_005);
  });

  it('keeps 100k routes in a table, every add answered', async () => {
    await c.call(msg.ip_table_add_del, { is_add: true, table: { table_id: 8 } }, 2);
    const total = 100_000;
    const base = c.received.length;
    for (let first = 0; first < total; first += 20_000)
      c.sendRaw(c.routeAddFrames(8, 20_000, first, 100_000 + first));
    const got = await c.waitForCount(base + total, 60_000);
    const last = decodeMessage(msg.ip_route_add_del_reply, got[base + total - 1] as Buffer);
    assert.equal(last.retval, 0);
    assert.equal(sim.state.tables.find((t) => t.af === 4 && t.tableId === 8)?.routes, total + 5);
  });
});
