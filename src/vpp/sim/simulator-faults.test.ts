/**
 * The simulator's fault injection: a restart (state lost, ids reshuffled), dropped connections,
 * stalled replies, removed messages and changed CRCs. Real Unix sockets, the raw test client.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { decodeMessage, encodeMessage } from '../codec/message-codec.js';
import { msg } from '../messages/index.js';
import { simSessions } from '../../../test/support/sim/sim-sessions.js';

const { start, call } = simSessions();

describe('fault injection', () => {
  it('restart: state lost, socket gone meanwhile, ids reshuffled (memclnt fixed), a new pid', async () => {
    const { sim, c, connect } = await start({ pid: 100 });
    await call(c, msg.create_loopback_instance, {});
    const idsBefore = sim.messageTable();
    const restarting = sim.restart({ reshuffleIds: true, downtimeMs: 50 });
    await c.closed;
    assert.equal(existsSync(sim.socketPath), false);
    await restarting;
    const c2 = await connect();
    assert.deepEqual(
      sim.state.interfaces.map((i) => i.name),
      ['local0'],
    );
    const after = c2.table;
    for (const [k, id] of [
      ['sockclnt_create_455fb9c4', 15],
      ['control_ping_51077d14', 23],
      ['get_api_json_51077d14', 27],
    ] as const) {
      assert.equal(after.get(k), id);
    }
    const moved = [...idsBefore].filter(([k, id]) => after.get(k) !== id).length;
    assert.ok(moved > 100, `only ${moved} ids moved`);
    assert.equal((await call(c2, msg.control_ping, {})).vpe_pid, 101);
    assert.equal(sim.state.restarts, 1);
  });

  it('dropConnections: sockets die without a goodbye, state stays', async () => {
    const { sim, c, connect } = await start();
    await call(c, msg.create_loopback_instance, {});
    sim.dropConnections();
    await c.closed;
    const c2 = await connect();
    assert.equal(c2.clientIndex, 0x80000001);
    assert.equal(sim.state.interfaces.length, 2);
  });

  it('failRequest with a retval: that request alone is refused, nothing done; the ones around it work', async () => {
    const { sim, c } = await start();
    sim.failRequest('create_loopback_instance', { retval: -7 }, { skip: 1 });
    const first = await call(c, msg.create_loopback_instance, {});
    const refused = await call(c, msg.create_loopback_instance, {});
    const third = await call(c, msg.create_loopback_instance, {});
    assert.deepEqual([first.retval, refused.retval, refused.sw_if_index, third.retval], [0, -7, 0, 0]);
    assert.equal(sim.state.interfaces.length, 3, 'local0 and two loopbacks');
  });

  it("failRequest 'lose-reply': the request is carried out, the connection dies before its reply", async () => {
    const { sim, c, connect } = await start();
    sim.failRequest('create_loopback_instance', 'lose-reply');
    const base = c.received.length;
    c.send(msg.create_loopback_instance, {}, 21);
    await c.closed;
    assert.equal(c.received.length, base, 'no reply');
    const c2 = await connect();
    assert.equal(sim.state.interfaces.length, 2, 'the loopback exists');
    assert.equal((await call(c2, msg.create_loopback_instance, {})).retval, 0, 'used up');
  });

  it('stallReplies: nothing comes back until released, then everything in order', async () => {
    const { sim, c } = await start();
    sim.stallReplies(true);
    const base = c.received.length;
    for (let i = 0; i < 5; i++) c.send(msg.control_ping, {}, 500 + i);
    // All five arrived and are held: none was handled, so no reply can be on its way.
    await sim.whenHeld(5);
    assert.equal(sim.state.stalled, true);
    assert.equal(c.received.length, base);
    sim.stallReplies(false);
    const got = (await c.waitForCount(base + 5))
      .slice(base)
      .map((p) => decodeMessage(msg.control_ping_reply, p).context);
    assert.deepEqual(got, [500, 501, 502, 503, 504]);
  });

  it('removeMessage and changeCrc show in the next handshake; a removed id answers nothing', async () => {
    const { sim, c, connect } = await start();
    const oldId = c.idOf(msg.sr_policy_add);
    sim.removeMessage('sr_policy_add');
    sim.changeCrc('sw_interface_dump', 'deadbeef');
    const c2 = await connect();
    assert.equal(c2.table.has('sr_policy_add_44ac92e8'), false);
    assert.equal(c2.table.get('sw_interface_dump_deadbeef'), c.idOf(msg.sw_interface_dump));
    assert.equal(c2.table.has('sw_interface_dump_aa610c27'), false);
    c.sendRaw(encodeMessage(msg.sr_policy_add, oldId, {}, { context: 1, clientIndex: c.clientIndex }));
    assert.equal(await c.answeredBeforePing(), 0);
  });
});
