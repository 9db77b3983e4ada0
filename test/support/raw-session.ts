/**
 * The simulator's own tests talk to it with RawClient (test/support/raw-client.ts): one VPP target
 * per test, closed after it, and typed calls and dumps decoded without their context field.
 */
import assert from 'node:assert/strict';
import { afterEach } from 'node:test';
import { decodeMessage } from '../../src/vpp/codec/message-codec.js';
import type { MessageDef, MessageInput } from '../../src/vpp/codec/schema.js';
import { msg } from '../../src/vpp/messages/index.js';
import { RawClient } from './raw-client.js';
import { startVppTarget, type VppTarget } from './vpp-target.js';

export type Obj = Record<string, unknown>;

export interface RawSession {
  readonly t: VppTarget;
  readonly c: RawClient;
}

/** A message without its context (which changes with every request). */
export function withoutContext(o: Obj): Obj {
  const { context: _c, ...rest } = o;
  return rest;
}

/** Each test's targets are closed after it (registers an afterEach in the calling file). */
export function rawSessions(clientName: string): {
  start: () => Promise<RawSession>;
  call: <M extends MessageDef>(c: RawClient, def: M, input: MessageInput<M>) => Promise<Obj>;
  rv: <M extends MessageDef>(c: RawClient, def: M, input: MessageInput<M>) => Promise<number>;
  dump: <M extends MessageDef>(c: RawClient, def: M, input: MessageInput<M>) => Promise<Obj[]>;
  /** A new loopback (VPP picks its instance and MAC); its sw_if_index. */
  loopback: (c: RawClient) => Promise<number>;
} {
  const open: RawSession[] = [];
  let ctx = 1;
  afterEach(async () => {
    for (const o of open.splice(0)) {
      o.c.close();
      await o.t.close();
    }
  });
  const call = async <M extends MessageDef>(c: RawClient, def: M, input: MessageInput<M>): Promise<Obj> => {
    const [p] = await c.call(def, input, ctx++);
    assert.ok(def.reply);
    return withoutContext(decodeMessage(def.reply, p as Buffer));
  };
  return {
    async start() {
      const t = await startVppTarget();
      const c = await RawClient.connect(t.socketPath);
      await c.handshake(clientName);
      open.push({ t, c });
      return { t, c };
    },
    call,
    async rv(c, def, input) {
      return (await call(c, def, input)).retval as number;
    },
    async loopback(c) {
      const r = await call(c, msg.create_loopback_instance, {
        mac_address: '00:00:00:00:00:00',
        is_specified: false,
        user_instance: 0,
      });
      assert.equal(r.retval, 0);
      return r.sw_if_index as number;
    },
    async dump(c, def, input) {
      const ps = await c.dump(def, input, ctx++);
      const details = def.stream as MessageDef;
      return ps.slice(0, -1).map((p) => withoutContext(decodeMessage(details, p) as Obj));
    },
  };
}
