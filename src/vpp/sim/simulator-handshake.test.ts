/**
 * The simulator's handshake and message dispatch against VPP 26.06's (bad messages, unknown ids,
 * the CLI). Real Unix sockets, the raw test client.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeMessage, encodeMessage } from '../codec/message-codec.js';
import { msg } from '../messages/index.js';
import { simSessions } from '../../../test/support/sim/sim-sessions.js';

const { start, call, rv } = simSessions();

describe('handshake and dispatch', () => {
  it('first client gets 0x80000001, the next 0x80000002, a freed index is reused', async () => {
    const { sim, c, connect } = await start();
    assert.equal(c.clientIndex, 0x80000001);
    const c2 = await connect();
    assert.equal(c2.clientIndex, 0x80000002);
    c2.close();
    await c2.closed;
    await sim.whenClientsAtMost(1);
    const c3 = await connect();
    assert.equal(c3.clientIndex, 0x80000002);
  });

  it('answers nothing to an unknown id or a wrong client_index, and the next request still works', async () => {
    const { sim, c } = await start();
    const before = c.received.length;
    c.sendPayload(Buffer.from([0x7f, 0xf0, 0, 0, 0, 0, 0, 0, 0, 1])); // id 32752: no such message
    c.send(msg.control_ping, {}, 7, 0x80000009); // no registration 9
    c.send(msg.control_ping, {}, 8, 0x00000001); // a shared-memory index: none here
    c.send(msg.control_ping, {}, 9);
    const [p] = (await c.waitForCount(before + 1)).slice(before);
    const r = decodeMessage(msg.control_ping_reply, p as Buffer);
    assert.equal(r.context, 9);
    assert.equal(await c.answeredBeforePing(), 0);
    assert.equal(sim.state.unansweredCounts.get('#32752'), 1);
  });

  it('performs a request with a wrong client_index without answering it (REPLY_MACRO)', async () => {
    const { sim, c } = await start();
    c.send(msg.create_loopback_instance, { is_specified: true, user_instance: 5 }, 11, 0x80000007);
    assert.equal(await c.answeredBeforePing(), 0);
    assert.deepEqual(
      sim.state.interfaces.map((i) => i.name),
      ['local0', 'loop5'],
    );
  });

  it('drops a message shorter than its counted arrays', async () => {
    const { c } = await start();
    const full = encodeMessage(
      msg.acl_add_replace,
      c.idOf(msg.acl_add_replace),
      { acl_index: 0xffffffff, tag: 't', r: [{}, {}] },
      { context: 3, clientIndex: c.clientIndex },
    ).subarray(16);
    c.sendPayload(full.subarray(0, full.length - 10));
    assert.equal(await c.answeredBeforePing(), 0);
    assert.equal(await rv(c, msg.acl_add_replace, { acl_index: 0xffffffff, tag: 't', r: [] }), 0);
  });

  it('control_ping_reply carries client_index 0 and the pid; memclnt_keepalive gets no answer', async () => {
    const { c } = await start({ pid: 4321 });
    const r = await call(c, msg.control_ping, {});
    assert.equal(r.client_index, 0);
    assert.equal(r.vpe_pid, 4321);
    c.send(msg.memclnt_keepalive, {}, 5);
    assert.equal(await c.answeredBeforePing(), 0);
  });

  it('sockclnt_delete answers response 1 and closes the socket', async () => {
    const { sim, c } = await start();
    const [p] = await c.call(msg.sockclnt_delete, { index: c.clientIndex }, 3);
    assert.equal(decodeMessage(msg.sockclnt_delete_reply, p as Buffer).response, 1);
    await c.closed;
    await sim.whenClientsAtMost(0);
    assert.equal(sim.state.clients.length, 0);
  });

  it('cli_inband: show version, unknown input', async () => {
    const { c } = await start({ version: '26.06-release' });
    const v = await call(c, msg.cli_inband, { cmd: 'show version' });
    assert.match(String(v.reply), /^vpp v26\.06-release built by \S+ on \S+ at \S+\n$/);
    const u = await call(c, msg.cli_inband, { cmd: 'frobnicate now' });
    assert.equal(u.retval, -1);
    assert.equal(u.reply, "unknown input `frobnicate now'\n");
    const s = await call(c, msg.cli_inband, { cmd: 'show frobs' });
    assert.equal(s.reply, "show: unknown input `frobs'\n");
  });

  it('cli_inband: show sr encaps hop-limit / source addr, as set through the API', async () => {
    const { c } = await start();
    // VPP's initial values: IPv6_DEFAULT_HOP_LIMIT and a zeroed source.
    const initial = await call(c, msg.cli_inband, { cmd: 'show sr encaps hop-limit' });
    assert.equal(initial.retval, 0);
    assert.equal(initial.reply, 'SR encaps hop-limit = 64\n');
    assert.equal(
      (await call(c, msg.cli_inband, { cmd: 'show sr encaps source addr' })).reply,
      'SR encaps source addr = ::\n',
    );
    assert.equal(await rv(c, msg.sr_set_encap_hop_limit, { hop_limit: 17 }), 0);
    assert.equal(await rv(c, msg.sr_set_encap_source, { encaps_source: 'fc00:0:0:1::00a0' }), 0);
    assert.equal(
      (await call(c, msg.cli_inband, { cmd: 'show sr encaps hop-limit' })).reply,
      'SR encaps hop-limit = 17\n',
    );
    assert.equal(
      (await call(c, msg.cli_inband, { cmd: '  show  sr encaps   source addr ' })).reply,
      'SR encaps source addr = fc00:0:0:1::a0\n',
    );
  });
});
