/**
 * The simulator's interfaces against VPP's behaviour for bad operations (retvals taken from VPP
 * 26.06's handlers). Real Unix sockets, the raw test client.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeMessage } from '../codec/message-codec.js';
import { msg } from '../messages/index.js';
import { RawClient } from '../../../test/support/raw-client.js';
import { Rv, permissiveHost } from './index.js';
import type { HostOps } from './host.js';
import { simSessions } from '../../../test/support/sim/sim-sessions.js';

const { start, call, rv } = simSessions();

describe('interfaces', () => {
  it('bad sw_if_index -2; tag/MTU/admin; events -31 on a second enable', async () => {
    const { c } = await start();
    assert.equal(
      await rv(c, msg.sw_interface_set_flags, { sw_if_index: 9999, flags: 1 }),
      Rv.INVALID_SW_IF_INDEX,
    );
    assert.equal(await rv(c, msg.want_interface_events, { enable_disable: 1, pid: 77 }), 0);
    assert.equal(
      await rv(c, msg.want_interface_events, { enable_disable: 1, pid: 77 }),
      Rv.INVALID_REGISTRATION,
    );
    // loopback create: reply, then an event (flags 0); admin up: loopback link follows (flags 3)
    const start2 = c.received.length;
    c.send(msg.create_loopback_instance, {}, 40);
    const [reply, ev] = (await c.waitForCount(start2 + 2)).slice(start2) as [Buffer, Buffer];
    const sw = decodeMessage(msg.create_loopback_instance_reply, reply).sw_if_index;
    assert.deepEqual(
      { ...decodeMessage(msg.sw_interface_event, ev) },
      { client_index: c.clientIndex, pid: 77, sw_if_index: sw, flags: 0, deleted: false },
    );
    const [, up] = await c.call(msg.sw_interface_set_flags, { sw_if_index: sw, flags: 1 }, 41, 2);
    assert.equal(decodeMessage(msg.sw_interface_event, up as Buffer).flags, 3);
    const [, del] = await c.call(msg.delete_loopback, { sw_if_index: sw }, 42, 2);
    assert.deepEqual(
      { ...decodeMessage(msg.sw_interface_event, del as Buffer), client_index: 0 },
      { client_index: 0, pid: 77, sw_if_index: sw, flags: 0, deleted: true },
    );
    assert.equal(await rv(c, msg.want_interface_events, { enable_disable: 0, pid: 77 }), 0);
    assert.equal(
      await rv(c, msg.want_interface_events, { enable_disable: 0, pid: 77 }),
      Rv.INVALID_REGISTRATION,
    );
  });

  it('af_packet: missing host interface -71, duplicate -79 with the existing index', async () => {
    const { c } = await start({
      host: { ...permissiveHost, interfaceExists: (name) => name === 'veth-a' },
      checkHostInterfaces: true,
    });
    const missing = await call(c, msg.af_packet_create_v3, {
      mode: 1,
      host_if_name: 'nope',
      use_random_hw_addr: true,
    });
    assert.deepEqual([missing.retval, missing.sw_if_index], [Rv.INVALID_INTERFACE, 0]);
    const ok = await call(c, msg.af_packet_create_v3, {
      mode: 1,
      host_if_name: 'veth-a',
      use_random_hw_addr: true,
    });
    assert.equal(ok.retval, 0);
    const dup = await call(c, msg.af_packet_create_v3, {
      mode: 1,
      host_if_name: 'veth-a',
      use_random_hw_addr: true,
    });
    assert.deepEqual([dup.retval, dup.sw_if_index], [Rv.IF_ALREADY_EXISTS, ok.sw_if_index]);
    assert.equal(await rv(c, msg.af_packet_delete, { host_if_name: 'nope' }), Rv.SYSCALL_ERROR_1);
  });

  it('tap_create_v3 without /dev/vhost-net answers -11', async () => {
    const { c } = await start({ vhostNet: false });
    const r = await call(c, msg.tap_create_v3, {
      id: 0xffffffff,
      host_if_name_set: true,
      host_if_name: 'net1',
      tap_flags: 4,
      tag: 'x',
    });
    assert.deepEqual([r.retval, r.sw_if_index], [Rv.SYSCALL_ERROR_1, 0xffffffff]);
  });

  it('tap_create_v3 with vhost-net creates an interface tapN', async () => {
    const { sim, c } = await start({ vhostNet: true });
    const r = await call(c, msg.tap_create_v3, {
      id: 0xffffffff,
      host_if_name_set: true,
      host_if_name: 'net1',
      tag: 'pod',
    });
    assert.equal(r.retval, 0);
    const i = sim.state.interfaces.find((x) => x.swIfIndex === r.sw_if_index);
    assert.equal(i?.name, 'tap0');
    assert.equal(i?.tag, 'pod');
  });

  it('a persistent tap outlives a VPP restart but not tap_delete_v2 (tap_free unsets persistence)', async () => {
    const devices = new Set<string>();
    const host: HostOps = {
      ...permissiveHost,
      createTap: (spec) => devices.add(spec.name).size > 0,
      deleteTap: (_netns, name) => void devices.delete(name),
    };
    const { sim, c, connect } = await start({ vhostNet: true, host });
    const flags = msg.tap_flags_t.values.TAP_API_FLAG_PERSIST | msg.tap_flags_t.values.TAP_API_FLAG_ATTACH;
    const create = (client: RawClient, name: string, tap_flags: number) =>
      call(client, msg.tap_create_v3, {
        id: 0xffffffff,
        host_if_name_set: true,
        host_if_name: name,
        host_namespace_set: true,
        host_namespace: 'pod',
        tap_flags,
      });
    const kept = await create(c, 'net1', flags);
    const gone = await create(c, 'net2', 0);
    assert.deepEqual([kept.retval, gone.retval], [0, 0]);
    assert.deepEqual([...devices].sort(), ['net1', 'net2']);
    await sim.restart();
    assert.deepEqual([...devices], ['net1'], 'only the persistent device survives VPP going away');
    const c2 = await connect();
    const again = await create(c2, 'net1', flags);
    assert.equal(again.retval, 0, 'attached to the device that stayed');
    assert.equal(await rv(c2, msg.tap_delete_v2, { sw_if_index: again.sw_if_index as number }), 0);
    assert.deepEqual([...devices], [], 'deleted, persistent or not');
  });
});
