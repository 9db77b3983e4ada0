/**
 * The test etcd's start: a port found free can be taken before etcd binds it (another process, an
 * outgoing connection's ephemeral port); the start is then tried on other ports.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { EtcdServer, freePort } from './etcd-server.js';
import { ETCD_BACKEND } from './store-backends.js';

describe('EtcdServer.start', { skip: ETCD_BACKEND.skip }, () => {
  it('starts on other ports when the first it picked is taken by the time etcd binds it', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const taken = (holder.address() as { port: number }).port;
    const picked: number[] = [];
    try {
      const server = await EtcdServer.start({
        // The taken port first, as freePort() would hand out a port someone took since.
        pickPort: async () => {
          const port = picked.length === 0 ? taken : await freePort();
          picked.push(port);
          return port;
        },
      });
      try {
        assert.notEqual(server.clientPort, taken);
        assert.notEqual(server.peerPort, taken);
        assert.ok(picked.length >= 4, `ports picked: ${picked.join(', ')}`);
        const res = await fetch(`${server.endpoint}/health`);
        assert.equal(res.status, 200);
      } finally {
        await server.stop();
      }
    } finally {
      holder.close();
    }
  });

  it('gives up on other failures at once, with etcd’s words', async () => {
    await assert.rejects(
      EtcdServer.start({ extraArgs: ['--no-such-flag'] }),
      /etcd exited before it was ready: .*no-such-flag/s,
    );
  });
});
