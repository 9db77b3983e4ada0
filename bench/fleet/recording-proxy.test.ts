/**
 * bench/fleet's recording proxy, against the simulator: what it records is what the client sent,
 * frame for frame and in order, whatever the socket's chunks, while both directions pass
 * unchanged; only the first connection is recorded, and what vppblast cannot replay is left out.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { VppClient } from '../../src/vpp/client/vpp-client.js';
import { decodeMessage, encodeMessage } from '../../src/vpp/codec/message-codec.js';
import { msg } from '../../src/vpp/messages/index.js';
import { UnixSocketTransport } from '../../src/vpp/transport/unix-socket-transport.js';
import { FrameParser } from '../../src/vpp/wire/frame.js';
import { FrameRecorder } from '../reconcile/frame-recorder.js';
import { startSimulator, type SimProcess } from './processes.js';
import { RecordingProxy } from './recording-proxy.js';

/** Frames of a replay file: [message id, payload length] each. */
function framesOf(bytes: Buffer): [number, number][] {
  const out: [number, number][] = [];
  for (let at = 0; at < bytes.length;) {
    const length = bytes.readUInt32BE(at + 8);
    out.push([bytes.readUInt16BE(at + 16), length]);
    at += 16 + length;
  }
  return out;
}

/** A raw client on `socketPath`: writes bytes, and waits for the n-th frame VPP sent it. */
class RawClient {
  readonly socket: net.Socket;
  readonly payloads: Buffer[] = [];
  readonly #parser = new FrameParser();
  #waiters: { n: number; resolve: () => void }[] = [];

  constructor(socketPath: string) {
    this.socket = net.connect(socketPath);
    this.socket.on('data', (chunk: Buffer) =>
      this.#parser.push(chunk, (p) => {
        this.payloads.push(Buffer.from(p));
        this.#waiters = this.#waiters.filter((w) =>
          w.n <= this.payloads.length ? (w.resolve(), false) : true,
        );
      }),
    );
  }

  frames(n: number): Promise<void> {
    if (this.payloads.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ n, resolve }));
  }
}

describe("bench/fleet's recording proxy", () => {
  let dir: string;
  let sim: SimProcess;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'recording-proxy-'));
    sim = await startSimulator(path.join(dir, 'vpp.sock'), ['GigabitEthernet0/0/0']);
  });
  after(async () => {
    await sim.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test("records the client's frames in order, as the client's own transport saw them", async () => {
    const proxied = new FrameRecorder();
    const proxy = await RecordingProxy.listen(path.join(dir, 'proxy-1.sock'), sim.socketPath, proxied);
    // The reference: the same client's frames, copied where it hands them to its transport.
    const sent = new FrameRecorder();
    const client = new VppClient({
      socketPath: path.join(dir, 'proxy-1.sock'),
      transportFactory: sent.wrap(
        (t) => new UnixSocketTransport({ path: t.path, connectTimeoutMs: t.connectTimeoutMs }),
      ),
      clientName: 'proxy-test',
      healthCheckIntervalMs: 0,
    });
    proxied.start();
    sent.start();
    try {
      await client.connect();
      const version = await client.call(msg.show_version, {});
      assert.equal(version.retval, 0, 'replies come back through the proxy');
      // Pipelined: several frames in one write, one chunk.
      const loops = await Promise.all(
        Array.from({ length: 20 }, () => client.call(msg.create_loopback_instance, {})),
      );
      const interfaces = await client.dump(msg.sw_interface_dump, {});
      assert.equal(interfaces.length, 2 + loops.length);
    } finally {
      await client.close();
    }
    await proxy.close();
    proxied.stop();
    sent.stop();
    assert.equal(proxy.connections, 1);
    assert.equal(proxy.error, undefined);

    const a = await proxied.write(path.join(dir, 'proxied'));
    const b = await sent.write(path.join(dir, 'sent'));
    const bytes = await readFile(path.join(dir, 'proxied.frames'));
    assert.deepEqual(bytes, await readFile(path.join(dir, 'sent.frames')));
    assert.equal(
      await readFile(path.join(dir, 'proxied.table'), 'utf8'),
      await readFile(path.join(dir, 'sent.table'), 'utf8'),
    );
    // show_version, 20 loopbacks, the dump and its control_ping: the connection's own two out.
    assert.equal(a.frames, 23);
    assert.deepEqual([...a.leftOut].sort(), [
      ['sockclnt_create', 1],
      ['sockclnt_delete', 1],
    ]);
    assert.deepEqual(b, a);
    const table = new Map(
      (await readFile(path.join(dir, 'proxied.table'), 'utf8'))
        .trim()
        .split('\n')
        .map((l) => {
          const [id, name] = l.split(' ');
          return [Number(id), name!.slice(0, name!.lastIndexOf('_'))] as const;
        }),
    );
    assert.deepEqual(
      framesOf(bytes).map(([id]) => table.get(id)),
      [
        'show_version',
        ...Array<string>(20).fill('create_loopback_instance'),
        'sw_interface_dump',
        'control_ping',
      ],
    );
  });

  test('a frame split across chunks is recorded whole; a second connection passes unrecorded', async () => {
    const recorder = new FrameRecorder();
    const proxyPath = path.join(dir, 'proxy-2.sock');
    const proxy = await RecordingProxy.listen(proxyPath, sim.socketPath, recorder);
    recorder.start();
    const raw = new RawClient(proxyPath);
    const second = new RawClient(proxyPath);
    try {
      raw.socket.write(encodeMessage(msg.sockclnt_create, 15, { name: 'raw' }, { context: 1 }));
      await raw.frames(1);
      const reply = decodeMessage(msg.sockclnt_create_reply, raw.payloads[0]!);
      const id = (name: string): number =>
        reply.message_table.find((e) => e.name.startsWith(`${name}_`))!.index;
      const ping = (context: number): Buffer =>
        encodeMessage(msg.control_ping, id('control_ping'), {}, { clientIndex: reply.index, context });
      const pings = Buffer.concat([ping(2), ping(3), ping(4)]);
      // Two whole pings and half the third; the rest only once both are answered, so the proxy
      // has surely seen the first chunk end in the middle of a frame.
      const cut = 2 * ping(0).length + 7;
      raw.socket.write(pings.subarray(0, cut));
      await raw.frames(3);
      raw.socket.write(pings.subarray(cut));
      await raw.frames(4);
      assert.deepEqual(
        raw.payloads.slice(1).map((p) => decodeMessage(msg.control_ping_reply, p).context),
        [2, 3, 4],
      );
      // The answer to a keepalive: recorded, and left out of the replay (vppblast gets no reply).
      raw.socket.write(
        encodeMessage(
          msg.memclnt_keepalive_reply,
          id('memclnt_keepalive_reply'),
          { retval: 0 },
          { context: 9 },
        ),
      );
      second.socket.write(encodeMessage(msg.sockclnt_create, 15, { name: 'second' }, { context: 1 }));
      await second.frames(1);
      raw.socket.write(ping(5));
      await raw.frames(5);
    } finally {
      raw.socket.destroy();
      second.socket.destroy();
    }
    await Promise.all([once(raw.socket, 'close'), once(second.socket, 'close')]);
    await proxy.close();
    recorder.stop();
    assert.equal(proxy.connections, 2);
    const w = await recorder.write(path.join(dir, 'raw'));
    assert.deepEqual([...w.leftOut].sort(), [
      ['memclnt_keepalive_reply', 1],
      ['sockclnt_create', 1],
    ]);
    const frames = await readFile(path.join(dir, 'raw.frames'));
    assert.equal(w.frames, 4);
    assert.deepEqual(
      [0, 1, 2, 3].map((k) => frames.readUInt32BE(k * 26 + 22)),
      [2, 3, 4, 5],
      'the pings, whole and in order: the second connection is not in the recording',
    );
  });
});
