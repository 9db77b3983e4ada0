import { linkSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import { VppError } from '../errors.js';
import { frameBytes, headerBytes, payloadBytes } from '../wire/testing/frame-bytes.js';
import { UnixSocketTransport } from './unix-socket-transport.js';

// ---------------------------------------------------------------------------------------------
// Harness: a real net.Server on a Unix socket in a fresh temp dir, torn down after each test.

interface TestServer {
  readonly path: string;
  readonly dir: string;
  /** Resolves with the next accepted connection, in accept order. */
  nextConnection(): Promise<net.Socket>;
}

async function startServer(t: TestContext, opts: net.ServerOpts = {}): Promise<TestServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vppnet-transport-'));
  const socketPath = path.join(dir, 'api.sock');
  const accepted: net.Socket[] = [];
  const waiters: ((socket: net.Socket) => void)[] = [];
  let handedOut = 0;
  const server = net.createServer(opts, (socket) => {
    accepted.push(socket);
    waiters.shift()?.(socket);
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  t.after(async () => {
    for (const socket of accepted) {
      socket.destroy();
    }
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    path: socketPath,
    dir,
    nextConnection: () => {
      const socket = accepted[handedOut];
      handedOut++;
      return socket !== undefined ? Promise.resolve(socket) : new Promise((resolve) => waiters.push(resolve));
    },
  };
}

/** A transport destroyed after the test whatever happens, so no socket outlives it. */
function newTransport(
  t: TestContext,
  opts: ConstructorParameters<typeof UnixSocketTransport>[0],
): UnixSocketTransport {
  const transport = new UnixSocketTransport(opts);
  t.after(() => transport.destroy());
  return transport;
}

/** Records every 'close' of a transport, to check it comes exactly once. */
function recordCloses(transport: UnixSocketTransport): {
  readonly errors: (Error | undefined)[];
  readonly closed: Promise<Error | undefined>;
} {
  const errors: (Error | undefined)[] = [];
  const closed = new Promise<Error | undefined>((resolve) => {
    transport.on('close', (error) => {
      errors.push(error);
      resolve(error);
    });
  });
  return { errors, closed };
}

/** Copies of the next `count` frame payloads (the transport's views die with the callback). */
function nextFrames(transport: UnixSocketTransport, count: number): Promise<Buffer[]> {
  return new Promise((resolve) => {
    const frames: Buffer[] = [];
    const onFrame = (payload: Buffer): void => {
      frames.push(Buffer.from(payload));
      if (frames.length === count) {
        transport.off('frame', onFrame);
        resolve(frames);
      }
    };
    transport.on('frame', onFrame);
  });
}

/** Reads `length` bytes on the server side, counting the 'data' events they took. */
function readBytes(socket: net.Socket, length: number): Promise<{ data: Buffer; reads: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      received += chunk.length;
      if (received >= length) {
        socket.off('data', onData);
        socket.off('error', reject);
        resolve({ data: Buffer.concat(chunks), reads: chunks.length });
      }
    };
    socket.on('data', onData);
    socket.on('error', reject);
  });
}

/** Lets I/O callbacks run a few times, so an event that should not come has had its chance. */
async function settleEventLoop(): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function isVppError(code: string): (error: unknown) => boolean {
  return (error) => error instanceof VppError && error.code === code;
}

function hasErrnoCode(code: string): (error: unknown) => boolean {
  return (error) => error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}

// ---------------------------------------------------------------------------------------------

void describe('UnixSocketTransport', () => {
  // Every test cleans up after itself: no socket, server or timer may outlive the suite. The
  // runner's own stdio pipes are there from the start, so compare against that baseline.
  const liveHandles = (): string[] =>
    process
      .getActiveResourcesInfo()
      .filter((resource) => /Timeout|Immediate|Pipe|TCP|Socket/.test(resource))
      .sort();
  let baseline: string[] = [];
  before(() => {
    baseline = liveHandles();
  });
  after(async () => {
    await settleEventLoop(); // handles destroyed by the last test close in a later turn
    assert.deepEqual(liveHandles(), baseline);
  });

  void it('exchanges frames both ways', async (t) => {
    const server = await startServer(t);
    const transport = newTransport(t, { path: server.path });
    await transport.connect();
    const peer = await server.nextConnection();

    const outbound = [payloadBytes(15, 70), payloadBytes(23, 10)];
    const expectedOut = Buffer.concat(outbound.map(frameBytes));
    const serverRead = readBytes(peer, expectedOut.length);
    for (const payload of outbound) {
      assert.equal(transport.send(frameBytes(payload)), true);
    }
    assert.deepEqual((await serverRead).data, expectedOut);

    const inbound = [payloadBytes(16, 300), payloadBytes(24, 20), payloadBytes(999, 2)];
    const received = nextFrames(transport, inbound.length);
    peer.write(Buffer.concat(inbound.map(frameBytes)));
    assert.deepEqual(await received, inbound);
  });

  void it('reassembles frames the server writes in pieces, including one larger than 64 KiB', async (t) => {
    const server = await startServer(t);
    const transport = newTransport(t, { path: server.path });
    await transport.connect();
    const peer = await server.nextConnection();

    // Like VPP sending sockclnt_create_reply's ~72 KB message table at most 4 KiB per send.
    const inbound = [payloadBytes(16, 72 * 1024 + 5), payloadBytes(24, 20), payloadBytes(25, 9000)];
    const stream = Buffer.concat(inbound.map(frameBytes));
    const received = nextFrames(transport, inbound.length);
    for (let offset = 0; offset < stream.length; offset += 4096) {
      peer.write(stream.subarray(offset, offset + 4096));
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.deepEqual(await received, inbound);
  });

  void it('writes all frames sent in one tick with one write: 1000 frames arrive in a few reads', async (t) => {
    const server = await startServer(t);
    const transport = newTransport(t, { path: server.path });
    await transport.connect();
    const peer = await server.nextConnection();

    const frames = Array.from({ length: 1000 }, (_, i) => frameBytes(payloadBytes(23, 10 + (i % 7))));
    const expected = Buffer.concat(frames);
    const serverRead = readBytes(peer, expected.length);
    const writes = t.mock.method(net.Socket.prototype, 'write');
    for (const frame of frames) {
      transport.send(frame);
    }
    const { data, reads } = await serverRead;
    assert.deepEqual(data, expected);
    assert.equal(writes.mock.callCount(), 1, 'one socket.write for the whole tick');
    // ~15 KB in one write; a reader might still see it in two pieces, never in hundreds.
    assert.ok(reads <= 2, `1000 frames took ${reads} reads`);
  });

  void it('writes the next tick from the front of the same memory once the socket took the last', async (t) => {
    const server = await startServer(t);
    const transport = newTransport(t, { path: server.path });
    await transport.connect();
    const peer = await server.nextConnection();

    const ticks = [0, 1, 2].map((k) =>
      Array.from({ length: 100 }, (_, i) => frameBytes(payloadBytes(k, 40 + i))),
    );
    const expected = Buffer.concat(ticks.flat());
    const serverRead = readBytes(peer, expected.length);
    const writes = t.mock.method(net.Socket.prototype, 'write');
    for (const frames of ticks) {
      for (const frame of frames) transport.send(frame);
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.deepEqual((await serverRead).data, expected);
    const written = writes.mock.calls.map((c) => c.arguments[0] as Buffer);
    assert.equal(written.length, 3);
    // A few KiB each: the kernel takes each at once, so none of them needs an arena of its own.
    for (const view of written.slice(1)) {
      assert.equal(view.buffer, (written[0] as Buffer).buffer);
      assert.equal(view.byteOffset, (written[0] as Buffer).byteOffset);
    }
  });

  void it('batches frames sent from promise jobs of the same tick too', async (t) => {
    const server = await startServer(t);
    const transport = newTransport(t, { path: server.path });
    await transport.connect();
    const peer = await server.nextConnection();

    const frames = Array.from({ length: 200 }, (_, i) => frameBytes(payloadBytes(100 + i, 12)));
    const expected = Buffer.concat(frames);
    const serverRead = readBytes(peer, expected.length);
    const writes = t.mock.method(net.Socket.prototype, 'write');
    // As a client core would: each request sent after an await, all within one turn of the loop.
    await Promise.all(
      frames.map(async (frame) => {
        await Promise.resolve();
        transport.send(frame);
      }),
    );
    const { data, reads } = await serverRead;
    assert.deepEqual(data, expected);
    assert.equal(writes.mock.callCount(), 1, 'one socket.write for the whole tick');
    assert.ok(reads <= 2, `200 frames took ${reads} reads`);
  });

  void it('reports backpressure when the server stops reading, then drain once it reads again', async (t) => {
    const server = await startServer(t, { pauseOnConnect: true });
    const transport = newTransport(t, { path: server.path });
    await transport.connect();
    const peer = await server.nextConnection();
    let drains = 0;
    transport.on('drain', () => drains++);

    // One 1 KiB frame per turn of the loop, so each is written at once and the kernel buffer, not
    // this tick's batch, is what fills up.
    const frames: Buffer[] = [];
    let accepted = true;
    while (accepted) {
      assert.ok(frames.length < 100_000, 'send() never reported backpressure');
      const frame = frameBytes(payloadBytes(frames.length & 0xffff, 1024 - 16));
      frames.push(frame);
      accepted = transport.send(frame);
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(transport.writableNeedDrain, true);
    assert.equal(drains, 0);

    const expected = Buffer.concat(frames);
    const drained = new Promise<void>((resolve) => transport.once('drain', resolve));
    const serverRead = readBytes(peer, expected.length);
    peer.resume();
    await drained;
    assert.equal(transport.writableNeedDrain, false);
    assert.deepEqual((await serverRead).data, expected);
    await settleEventLoop();
    assert.equal(drains, 1);
  });

  void it('stops reading while its read gate holds a promise, and reads the rest once it settles', async (t) => {
    const server = await startServer(t);
    let hold: (() => void) | undefined;
    let held = 0;
    const transport = newTransport(t, {
      path: server.path,
      // Held once, after the first chunk: the rest must wait in the kernel until it is let go.
      readGate: () => {
        if (held++ > 0) return undefined;
        return new Promise<void>((resolve) => (hold = resolve));
      },
    });
    await transport.connect();
    const peer = await server.nextConnection();
    // 4 MiB of 1 KiB frames: far more than the kernel buffers of a Unix socket pair hold.
    const total = 4096;
    let delivered = 0;
    transport.on('frame', () => delivered++);
    const all = nextFrames(transport, total);
    peer.write(
      Buffer.concat(Array.from({ length: total }, (_, i) => frameBytes(payloadBytes(i & 0xffff, 1024 - 16)))),
    );
    while (hold === undefined) await new Promise((resolve) => setImmediate(resolve));
    const atPause = delivered;
    assert.ok(atPause > 0 && atPause < total, `${atPause} frames before the gate`);
    await settleEventLoop();
    assert.equal(delivered, atPause, 'nothing read while the gate is held');
    assert.ok(peer.writableLength > 0, 'the rest waits on the sending side');
    hold();
    const frames = await all;
    assert.equal(frames.length, total);
    assert.deepEqual(
      frames.slice(-2).map((f) => f.readUInt16BE(0)),
      [(total - 2) & 0xffff, (total - 1) & 0xffff],
      'in order, none lost',
    );
  });

  void it('returns false when one tick queues more than the high-water mark, and drains after', async (t) => {
    const server = await startServer(t);
    const transport = newTransport(t, { path: server.path });
    await transport.connect();
    const peer = await server.nextConnection();

    const frame = frameBytes(payloadBytes(7, 4096 - 16));
    const results: boolean[] = [];
    for (let i = 0; i < 64; i++) {
      results.push(transport.send(frame));
    }
    assert.equal(results[0], true);
    assert.equal(results.at(-1), false);
    assert.equal(transport.writableNeedDrain, true);
    const serverRead = readBytes(peer, frame.length * 64);
    await new Promise<void>((resolve) => transport.once('drain', resolve));
    assert.equal(transport.writableNeedDrain, false);
    assert.equal((await serverRead).data.length, frame.length * 64);
  });

  void it('emits close once, without an error, when the server closes; later sends throw', async (t) => {
    const server = await startServer(t);
    const transport = newTransport(t, { path: server.path });
    const closes = recordCloses(transport);
    await transport.connect();
    const peer = await server.nextConnection();

    const received = nextFrames(transport, 1);
    peer.end(frameBytes(payloadBytes(24, 20)));
    assert.deepEqual(await received, [payloadBytes(24, 20)]);
    assert.equal(await closes.closed, undefined);
    await settleEventLoop();
    assert.deepEqual(closes.errors, [undefined]);
    assert.throws(() => transport.send(frameBytes(payloadBytes(23, 10))), isVppError('VPPNET_ERR_CLOSED'));
    await transport.close(); // resolves at once on a closed transport
    transport.destroy(new Error('late')); // no second close
    await settleEventLoop();
    assert.deepEqual(closes.errors, [undefined]);
  });

  void it('emits close with the socket error when the server resets the connection', async (t) => {
    // Linux resets a Unix stream connection closed with unread data: the server never reads.
    const server = await startServer(t, { pauseOnConnect: true });
    const transport = newTransport(t, { path: server.path });
    const closes = recordCloses(transport);
    await transport.connect();
    const peer = await server.nextConnection();
    transport.send(frameBytes(payloadBytes(23, 10)));
    await settleEventLoop();
    peer.destroy();
    const error = await closes.closed;
    assert.ok(hasErrnoCode('ECONNRESET')(error), `unexpected ${String(error)}`);
    await settleEventLoop();
    assert.equal(closes.errors.length, 1);
  });

  void it('drops frames sent after the server closed but before close is emitted', async (t) => {
    const server = await startServer(t);
    const transport = newTransport(t, { path: server.path });
    const closes = recordCloses(transport);
    await transport.connect();
    const peer = await server.nextConnection();
    // After the server's FIN, Node ends the client's side by itself and 'close' comes a little
    // later. Hook that automatic end() to send exactly inside the window: a write there would fail
    // with EPIPE ("ended by the other party") and report a clean close as an error.
    // eslint-disable-next-line @typescript-eslint/unbound-method -- applied below to the right socket
    const originalEnd = net.Socket.prototype.end;
    const lateSends: boolean[] = [];
    t.mock.method(net.Socket.prototype, 'end', function (this: net.Socket, ...args: unknown[]): net.Socket {
      const result = Reflect.apply(originalEnd, this, args) as net.Socket;
      if (this !== peer) {
        lateSends.push(transport.send(frameBytes(payloadBytes(23, 10))));
      }
      return result;
    });
    peer.end();
    assert.equal(await closes.closed, undefined);
    assert.deepEqual(lateSends, [true], 'the late frame was accepted (and dropped) without an error');
    await settleEventLoop();
    assert.deepEqual(closes.errors, [undefined]);
  });

  void it('close() writes frames already sent, ends the connection and resolves after close', async (t) => {
    const server = await startServer(t);
    const transport = newTransport(t, { path: server.path });
    const closes = recordCloses(transport);
    await transport.connect();
    const peer = await server.nextConnection();
    // The server echoes nothing and closes when the client does, as VPP does.
    const chunks: Buffer[] = [];
    peer.on('data', (chunk: Buffer) => chunks.push(chunk));
    const serverSawEnd = new Promise<void>((resolve) => peer.once('end', resolve));

    const frame = frameBytes(payloadBytes(17, 10)); // sockclnt_delete's id; bytes do not matter
    transport.send(frame);
    const closing = transport.close();
    assert.equal(transport.close(), closing, 'close() is idempotent');
    assert.throws(() => transport.send(frame), isVppError('VPPNET_ERR_CLOSED'));
    await serverSawEnd;
    assert.deepEqual(Buffer.concat(chunks), frame);
    await closing;
    assert.deepEqual(closes.errors, [undefined]);
  });

  void it('destroy(error) emits close once with that error and drops unsent frames', async (t) => {
    const server = await startServer(t);
    const transport = newTransport(t, { path: server.path });
    const closes = recordCloses(transport);
    await transport.connect();
    const peer = await server.nextConnection();
    const chunks: Buffer[] = [];
    peer.on('data', (chunk: Buffer) => chunks.push(chunk));
    const serverClosed = new Promise<void>((resolve) => peer.once('close', () => resolve()));

    transport.send(frameBytes(payloadBytes(23, 10)));
    const reason = new Error('client core gave up');
    transport.destroy(reason);
    transport.destroy(new Error('second reason is ignored'));
    assert.equal(await closes.closed, reason);
    await serverClosed;
    assert.equal(Buffer.concat(chunks).length, 0, 'the unsent frame was dropped');
    await settleEventLoop();
    assert.deepEqual(closes.errors, [reason]);
  });

  void it('delivers no more frames once a frame listener destroys the transport', async (t) => {
    const server = await startServer(t);
    const transport = newTransport(t, { path: server.path });
    const closes = recordCloses(transport);
    await transport.connect();
    const peer = await server.nextConnection();
    const seen: Buffer[] = [];
    transport.on('frame', (payload) => {
      seen.push(Buffer.from(payload));
      transport.destroy();
    });
    peer.write(Buffer.concat([1, 2, 3].map((id) => frameBytes(payloadBytes(id, 10)))));
    assert.equal(await closes.closed, undefined);
    assert.deepEqual(seen, [payloadBytes(1, 10)]);
  });

  void it('closes with VPPNET_ERR_FRAME_TOO_LARGE when the server announces an oversize frame', async (t) => {
    const server = await startServer(t);
    const transport = newTransport(t, { path: server.path, maxPayloadLength: 1000 });
    const closes = recordCloses(transport);
    await transport.connect();
    const peer = await server.nextConnection();
    const seen: Buffer[] = [];
    transport.on('frame', (payload) => seen.push(Buffer.from(payload)));

    // A good frame, then a header announcing 1001 bytes; the payload never needs to arrive.
    peer.write(Buffer.concat([frameBytes(payloadBytes(24, 20)), headerBytes(1001)]));
    const error = await closes.closed;
    assert.ok(isVppError('VPPNET_ERR_FRAME_TOO_LARGE')(error), `unexpected ${String(error)}`);
    assert.deepEqual(seen, [payloadBytes(24, 20)]);
    await settleEventLoop();
    assert.equal(closes.errors.length, 1);
    assert.throws(() => transport.send(frameBytes(payloadBytes(23, 10))), isVppError('VPPNET_ERR_CLOSED'));
  });

  void it('closes with VPPNET_ERR_DECODE on a frame too short for a message id', async (t) => {
    const server = await startServer(t);
    const transport = newTransport(t, { path: server.path });
    const closes = recordCloses(transport);
    await transport.connect();
    const peer = await server.nextConnection();
    peer.write(Buffer.concat([headerBytes(1), Buffer.from([0x00])]));
    assert.ok(isVppError('VPPNET_ERR_DECODE')(await closes.closed));
  });

  void it('closes with VPPNET_ERR_DECODE when the server closes in the middle of a frame', async (t) => {
    const server = await startServer(t);
    const transport = newTransport(t, { path: server.path });
    const closes = recordCloses(transport);
    await transport.connect();
    const peer = await server.nextConnection();
    peer.end(frameBytes(payloadBytes(24, 20)).subarray(0, 25));
    assert.ok(isVppError('VPPNET_ERR_DECODE')(await closes.closed));
  });

  void it('rejects connect() with ENOENT when no socket file exists, and emits no close', async (t) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'vppnet-transport-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const transport = newTransport(t, { path: path.join(dir, 'api.sock') });
    const closes = recordCloses(transport);
    await assert.rejects(transport.connect(), hasErrnoCode('ENOENT'));
    await settleEventLoop();
    assert.deepEqual(closes.errors, []);
    assert.throws(() => transport.send(frameBytes(payloadBytes(23, 10))), isVppError('VPPNET_ERR_CLOSED'));
    await assert.rejects(
      transport.connect(),
      isVppError('VPPNET_ERR_CLOSED'),
      'one connection per transport',
    );
  });

  void it('rejects connect() with ECONNREFUSED on a stale socket file nobody listens on', async (t) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'vppnet-transport-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    // What a crashed VPP leaves behind: the socket file of a listener that is gone. A hard link
    // keeps the file when the listener's close unlinks its own name.
    const livePath = path.join(dir, 'live.sock');
    const stalePath = path.join(dir, 'api.sock');
    const listener = net.createServer();
    await new Promise<void>((resolve) => listener.listen(livePath, resolve));
    linkSync(livePath, stalePath);
    await new Promise<void>((resolve) => listener.close(() => resolve()));

    const transport = newTransport(t, { path: stalePath });
    await assert.rejects(transport.connect(), hasErrnoCode('ECONNREFUSED'));
  });

  void it('rejects connect() with VPPNET_ERR_TIMEOUT and leaves no timer behind', async (t) => {
    const server = await startServer(t);
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const transport = newTransport(t, { path: server.path, connectTimeoutMs: 1000 });
    const connecting = transport.connect();
    // The connect completes in a later turn of the loop; the mocked clock runs out before that.
    t.mock.timers.tick(999);
    t.mock.timers.tick(1);
    await assert.rejects(connecting, isVppError('VPPNET_ERR_TIMEOUT'));
    t.mock.timers.reset();
  });

  void it('clears the connect timer once connected', async (t) => {
    const server = await startServer(t);
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const transport = newTransport(t, { path: server.path, connectTimeoutMs: 1000 });
    await transport.connect();
    t.mock.timers.tick(10_000); // a timer left armed would destroy the connection now
    t.mock.timers.reset();
    const peer = await server.nextConnection();
    const serverRead = readBytes(peer, 26);
    assert.equal(transport.send(frameBytes(payloadBytes(23, 10))), true);
    assert.equal((await serverRead).data.length, 26);
  });

  void it('rejects a pending connect() with VPPNET_ERR_CLOSED on close() and with the error on destroy()', async (t) => {
    const server = await startServer(t);
    const closed = newTransport(t, { path: server.path });
    const closedConnect = closed.connect();
    const closing = closed.close();
    await assert.rejects(closedConnect, isVppError('VPPNET_ERR_CLOSED'));
    await closing;

    const destroyed = newTransport(t, { path: server.path });
    const destroyedConnect = destroyed.connect();
    const reason = new Error('shutting down');
    destroyed.destroy(reason);
    await assert.rejects(destroyedConnect, (error) => error === reason);
  });

  void it('throws VPPNET_ERR_NOT_CONNECTED on send() before connect() resolves', async (t) => {
    const server = await startServer(t);
    const transport = newTransport(t, { path: server.path });
    const frame = frameBytes(payloadBytes(23, 10));
    assert.throws(() => transport.send(frame), isVppError('VPPNET_ERR_NOT_CONNECTED'));
    const connecting = transport.connect();
    assert.throws(() => transport.send(frame), isVppError('VPPNET_ERR_NOT_CONNECTED'));
    await connecting;
    assert.equal(transport.send(frame), true);
  });

  void it('rejects a connect timeout that is not positive', () => {
    for (const connectTimeoutMs of [0, -1, Number.NaN]) {
      assert.throws(() => new UnixSocketTransport({ path: '/nonexistent', connectTimeoutMs }), RangeError);
    }
  });
});
