import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { msg } from '../../messages/index.js';
import { VppRetvalError } from '../retval-error.js';
import { RecordingVppApi } from './recording-vpp-api.js';

describe('RecordingVppApi', () => {
  it('records requests and answers from handlers over retval 0', async () => {
    const vpp = new RecordingVppApi({ state: 'ready' }).answer(msg.create_loopback_instance, () => ({
      sw_if_index: 7,
    }));
    const reply = await vpp.call(msg.create_loopback_instance, { is_specified: false });
    assert.equal(reply.retval, 0);
    assert.equal(reply.sw_if_index, 7);
    await vpp.call(msg.show_version, {});
    assert.deepEqual(
      vpp.requests.map((r) => [r.kind, r.def.name]),
      [
        ['call', 'create_loopback_instance'],
        ['call', 'show_version'],
      ],
    );
    assert.deepEqual(vpp.requestsFor(msg.create_loopback_instance), [{ is_specified: false }]);
  });

  it('rejects a non-zero retval with VppRetvalError, as the real client does', async () => {
    const vpp = new RecordingVppApi({ state: 'ready' }).answer(msg.sw_interface_set_flags, () => ({
      retval: -2,
    }));
    const err = await vpp
      .call(msg.sw_interface_set_flags, { sw_if_index: 9, flags: 1 })
      .catch((e: unknown) => e);
    assert.ok(err instanceof VppRetvalError);
    assert.equal(err.messageName, 'sw_interface_set_flags');
    assert.equal(err.errorName, 'INVALID_SW_IF_INDEX');
    assert.equal(err.reply?.retval, -2);
  });

  it('refuses requests unless ready, and messages it was told VPP lacks', async () => {
    const vpp = new RecordingVppApi().withoutMessages(msg.sr_policy_add_v2);
    await assert.rejects(vpp.ping(), { code: 'VPPNET_ERR_NOT_CONNECTED' });
    vpp.start();
    vpp.handshake();
    await vpp.ping();
    assert.equal(vpp.pick([msg.sr_policy_add_v2, msg.sr_policy_add]), msg.sr_policy_add);
    await assert.rejects(vpp.call(msg.sr_policy_add_v2, {}), { code: 'VPPNET_ERR_UNKNOWN_MESSAGE' });
    await vpp.close();
    await assert.rejects(vpp.ping(), { code: 'VPPNET_ERR_CLOSED' });
  });

  it('moves along the client state machine only, emitting each transition', () => {
    const vpp = new RecordingVppApi();
    const seen: string[] = [];
    vpp.on('state', (to, from) => seen.push(`${from}->${to}`));
    vpp.start();
    vpp.handshake();
    vpp.drop();
    vpp.handshake({ pid: 5000 });
    assert.equal(vpp.vppPid, 5000);
    assert.deepEqual(seen, [
      'idle->connecting',
      'connecting->ready',
      'ready->reconnecting',
      'reconnecting->connecting',
      'connecting->ready',
    ]);
    assert.throws(
      () => new RecordingVppApi({ state: 'closed' }).handshake(),
      /illegal state transition closed -> connecting/,
    );
  });

  it('delivers emitted events to subscriptions and a resync after a reconnect', async () => {
    const vpp = new RecordingVppApi({ state: 'ready' });
    const sub = await vpp.subscribe(
      msg.want_interface_events,
      { enable_disable: 1, pid: 1 },
      msg.sw_interface_event,
    );
    const it = sub[Symbol.asyncIterator]();
    vpp.emit(msg.sw_interface_event, { client_index: 0, pid: 1, sw_if_index: 3, flags: 1, deleted: false });
    assert.deepEqual((await it.next()).value, {
      type: 'event',
      event: { client_index: 0, pid: 1, sw_if_index: 3, flags: 1, deleted: false },
    });
    vpp.drop();
    vpp.handshake();
    assert.deepEqual((await it.next()).value, { type: 'resync', reason: 'reconnected' });
    await sub.close();
    assert.deepEqual(
      vpp.requestsFor(msg.want_interface_events).map((r) => r.enable_disable),
      [1, 0],
    );
  });
});
