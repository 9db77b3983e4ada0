/**
 * The simulator's own tests start it in-process on a real Unix socket and talk to it with the raw
 * test client: one temporary directory per test file, every simulator and client closed after its
 * test.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before } from 'node:test';
import { decodeMessage } from '../../../src/vpp/codec/message-codec.js';
import type { MessageDef, MessageInput } from '../../../src/vpp/codec/schema.js';
import { RawClient } from '../raw-client.js';
import { permissiveHost, VppSimulator, type VppSimulatorOptions } from '../../../src/vpp/sim/index.js';

export interface SimSession {
  readonly sim: VppSimulator;
  readonly c: RawClient;
  readonly connect: () => Promise<RawClient>;
}

/** Registers the file's before/after/afterEach hooks (call it at the top level of a test file). */
export function simSessions(): {
  start: (opts?: Partial<VppSimulatorOptions>) => Promise<SimSession>;
  /** One request, its reply decoded. */
  call: <M extends MessageDef>(
    c: RawClient,
    def: M,
    input: MessageInput<M>,
  ) => Promise<Record<string, unknown>>;
  rv: <M extends MessageDef>(c: RawClient, def: M, input: MessageInput<M>) => Promise<number>;
} {
  let dir = '';
  let n = 0;
  const open: { sim: VppSimulator; clients: RawClient[] }[] = [];

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-sim-test-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    for (const o of open.splice(0)) {
      for (const c of o.clients) c.close();
      await o.sim.close();
    }
  });

  let ctx = 100;
  const call = async <M extends MessageDef>(
    c: RawClient,
    def: M,
    input: MessageInput<M>,
  ): Promise<Record<string, unknown>> => {
    const [p] = await c.call(def, input, ctx++);
    assert.ok(def.reply);
    return decodeMessage(def.reply, p as Buffer);
  };

  return {
    async start(opts = {}) {
      const socketPath = path.join(dir, `s${n++}.sock`);
      const sim = await VppSimulator.start({ socketPath, host: permissiveHost, vhostNet: false, ...opts });
      const entry = { sim, clients: [] as RawClient[] };
      open.push(entry);
      const connect = async (): Promise<RawClient> => {
        const c = await RawClient.connect(socketPath);
        entry.clients.push(c);
        await c.handshake();
        return c;
      };
      return { sim, c: await connect(), connect };
    },
    call,
    async rv(c, def, input) {
      return (await call(c, def, input)).retval as number;
    },
  };
}

export const prefix4 = (a: string, len: number) => ({ address: { af: 0, un: { ip4: a } }, len });
export const prefix6 = (a: string, len: number) => ({ address: { af: 1, un: { ip6: a } }, len });
