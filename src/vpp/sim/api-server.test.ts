import assert from 'node:assert/strict';
import type net from 'node:net';
import { describe, it } from 'node:test';
import { SimConnection, VPP_SEND_CHUNK } from './api-server.js';

/** A socket stand-in that records each write. */
function fakeSocket(): { socket: net.Socket; writes: Buffer[] } {
  const writes: Buffer[] = [];
  const socket = {
    destroyed: false,
    write: (b: Buffer) => writes.push(Buffer.from(b)) > 0,
    end: () => undefined,
    destroy: () => undefined,
  } as unknown as net.Socket;
  return { socket, writes };
}

describe('SimConnection', () => {
  it('sends queued frames in order, at most 4 KiB per write, like vl_socket_write_ready', () => {
    const { socket, writes } = fakeSocket();
    const c = new SimConnection(socket);
    const frames = [Buffer.alloc(3000, 1), Buffer.alloc(9000, 2), Buffer.alloc(10, 3)];
    for (const f of frames) c.push(f);
    c.flush();
    assert.ok(writes.every((w) => w.length <= VPP_SEND_CHUNK));
    assert.deepEqual(
      writes.map((w) => w.length),
      [4096, 4096, 3818],
    );
    assert.deepEqual(Buffer.concat(writes), Buffer.concat(frames));
    c.flush();
    assert.equal(writes.length, 3);
  });
});
