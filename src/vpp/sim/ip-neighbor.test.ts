/**
 * The simulator's neighbour settings (ip_neighbor_config / _get) and arping plugin against VPP
 * 26.06's handlers (ip_neighbor_api.c, arping_api.c, arping.c): retvals and reply fields.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { decodeMessage } from '../codec/message-codec.js';
import type { MessageDef, MessageInput } from '../codec/schema.js';
import { msg } from '../messages/index.js';
import { RawClient } from '../../../test/support/raw-client.js';
import { permissiveHost, Rv, VppSimulator } from './index.js';

let dir = '';
let n = 0;
let ctx = 1;
const open: { sim: VppSimulator; c: RawClient }[] = [];

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-sim-nb-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(async () => {
  for (const o of open.splice(0)) {
    o.c.close();
    await o.sim.close();
  }
});

async function start(): Promise<{ sim: VppSimulator; c: RawClient }> {
  const socketPath = path.join(dir, `s${n++}.sock`);
  const sim = await VppSimulator.start({ socketPath, host: permissiveHost, vhostNet: false });
  const c = await RawClient.connect(socketPath);
  await c.handshake();
  open.push({ sim, c });
  return { sim, c };
}

async function call<M extends MessageDef>(
  c: RawClient,
  def: M,
  input: MessageInput<M>,
): Promise<Record<string, unknown>> {
  const [p] = await c.call(def, input, ctx++);
  assert.ok(def.reply);
  return decodeMessage(def.reply, p as Buffer);
}

const IP4 = 0;
const IP6 = 1;

describe('simulator: ip_neighbor_config', () => {
  it("reports VPP's initial settings for both families: 50000 entries, no aging, no recycling", async () => {
    const { c } = await start();
    for (const af of [IP4, IP6]) {
      const r = await call(c, msg.ip_neighbor_config_get, { af });
      assert.deepEqual(
        { ...r, context: 0 },
        { context: 0, retval: 0, af, max_number: 50000, max_age: 0, recycle: false },
      );
    }
  });

  it('sets one family, as given, and reads it back', async () => {
    const { c } = await start();
    assert.equal(
      (await call(c, msg.ip_neighbor_config, { af: IP6, max_number: 7, max_age: 30, recycle: true })).retval,
      0,
    );
    const v6 = await call(c, msg.ip_neighbor_config_get, { af: IP6 });
    assert.deepEqual([v6.max_number, v6.max_age, v6.recycle], [7, 30, true]);
    const v4 = await call(c, msg.ip_neighbor_config_get, { af: IP4 });
    assert.deepEqual([v4.max_number, v4.max_age, v4.recycle], [50000, 0, false]);
  });

  it('answers an unknown family with INVALID_ADDRESS_FAMILY; the get keeps its initial AF_IP4 and ~0 values', async () => {
    const { c } = await start();
    assert.equal(
      (await call(c, msg.ip_neighbor_config, { af: 2, max_number: 1, max_age: 1, recycle: true })).retval,
      Rv.INVALID_ADDRESS_FAMILY,
    );
    const r = await call(c, msg.ip_neighbor_config_get, { af: 2 });
    assert.deepEqual(
      [r.retval, r.af, r.max_number, r.max_age, r.recycle],
      [Rv.INVALID_ADDRESS_FAMILY, IP4, 0xffffffff, 0xffffffff, false],
    );
  });
});

describe('simulator: arping', () => {
  async function upLoopback(c: RawClient): Promise<{ swIfIndex: number; mac: string }> {
    const lo = await call(c, msg.create_loopback_instance, { mac_address: '02:fe:00:00:00:01' });
    const swIfIndex = lo.sw_if_index as number;
    await call(c, msg.sw_interface_set_flags, { sw_if_index: swIfIndex, flags: 1 });
    return { swIfIndex, mac: '02:fe:00:00:00:01' };
  }

  it('sends `repeat` unsolicited advertisements with the interface MAC and answers rv 0, reply_count 0', async () => {
    const { sim, c } = await start();
    const { swIfIndex, mac } = await upLoopback(c);
    const r = await call(c, msg.arping, {
      address: { af: IP6, un: { ip6: '2001:db8::1' } },
      sw_if_index: swIfIndex,
      is_garp: true,
      repeat: 2,
      interval: 0,
    });
    assert.deepEqual([r.retval, r.reply_count], [0, 0]);
    assert.deepEqual(sim.state.neighbors.advertisements, [
      { swIfIndex, address: '2001:db8::1', mac },
      { swIfIndex, address: '2001:db8::1', mac },
    ]);
  });

  it('puts nothing on the wire of an admin-down interface, still answering rv 0', async () => {
    const { sim, c } = await start();
    const lo = await call(c, msg.create_loopback_instance, {});
    const r = await call(c, msg.arping, {
      address: { af: IP6, un: { ip6: '2001:db8::1' } },
      sw_if_index: lo.sw_if_index as number,
      is_garp: true,
      repeat: 1,
      interval: 0,
    });
    assert.equal(r.retval, 0);
    assert.deepEqual(sim.state.neighbors.advertisements, []);
  });

  it('answers INVALID_SW_IF_INDEX for an index that does not exist', async () => {
    const { c } = await start();
    const r = await call(c, msg.arping, {
      address: { af: IP6, un: { ip6: '2001:db8::1' } },
      sw_if_index: 42,
      is_garp: true,
      repeat: 1,
      interval: 0,
    });
    assert.deepEqual([r.retval, r.reply_count], [Rv.INVALID_SW_IF_INDEX, 0]);
  });

  it('dies on sw_if_index ~0, which the handler does not validate', async () => {
    const { sim, c } = await start();
    c.send(
      msg.arping,
      {
        address: { af: IP6, un: { ip6: '2001:db8::1' } },
        sw_if_index: 0xffffffff,
        is_garp: true,
        repeat: 1,
        interval: 0,
      },
      ctx++,
    );
    await c.closed;
    assert.equal(sim.state.crashes.length, 1);
  });
});
