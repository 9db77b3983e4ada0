/**
 * The local API over a real Unix socket, driven by vppnet-cni's own client (src/cni/agent-client.ts),
 * so both sides of src/agent-api/protocol.ts are held to the same contract.
 */
import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, rm, stat, symlink } from 'node:fs/promises';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { AgentApiError, AgentErrorCode } from '../agent-api/errors.js';
import {
  SERVICE_MAP_PATH,
  type AttachRequest,
  type AttachmentKey,
  type GcRequest,
} from '../agent-api/protocol.js';
import type { ServiceMapEntry } from '../agent-api/service-map.js';
import { AgentClient } from '../cni/agent-client.js';
import { CniError, CniErrorCode } from '../cni/errors.js';
import type { HostLinks } from '../dataplane/context.js';
import { VppClient } from '../vpp/client/vpp-client.js';
import {
  LocalApiServer,
  MAX_BODY_BYTES,
  MAX_CONNECTIONS,
  REQUEST_TIMEOUT_MS,
  type AttachmentOperations,
} from './local-api.js';
import { openServices } from './open-services.js';

const MAP: ServiceMapEntry[] = [
  {
    serviceAddress: '169.252.252.1',
    vpc: 'vpc-a',
    vpcId: 10,
    port: 'vm1',
    vmIp: '10.0.0.5',
    mac: '52:54:00:00:0a:05',
    mtu: 1460,
  },
];

class FakeAttachments implements AttachmentOperations {
  readonly calls: string[] = [];
  attach(req: AttachRequest) {
    this.calls.push(`attach ${req.containerId}`);
    if (req.ifname === 'taken')
      return Promise.reject(new AgentApiError(AgentErrorCode.POD_IFNAME_EXISTS, 'interface taken exists'));
    if (req.ifname === 'boom') return Promise.reject(new Error('unexpected'));
    return Promise.resolve({
      interfaces: [{ name: req.ifname, mac: '02:00:00:00:00:01', sandbox: req.netns }],
      mode: 'veth' as const,
    });
  }
  detach(key: AttachmentKey) {
    this.calls.push(`detach ${key.containerId} ${key.ifname} ${key.netns}`);
    return Promise.resolve();
  }
  check(key: AttachmentKey) {
    this.calls.push(`check ${key.containerId}`);
    if (key.containerId === 'missing')
      return Promise.reject(new AgentApiError(AgentErrorCode.ATTACHMENT_NOT_FOUND, 'no such attachment'));
    return Promise.resolve({
      ...key,
      mode: 'veth' as const,
      interfaces: [],
      podInterface: {
        name: key.ifname,
        mac: '02:00:00:00:00:01',
        up: true,
        addresses: ['169.254.169.103/24'],
      },
    });
  }
  gc(req: GcRequest) {
    this.calls.push(`gc ${req.network} ${req.validAttachments.length}`);
    return Promise.resolve();
  }
}

/** One HTTP request on a Unix socket, its status and JSON body. */
function call(
  socketPath: string,
  method: string,
  p: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const r = request(
      { socketPath, method, path: p, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: text === '' ? undefined : (JSON.parse(text) as unknown),
          }),
        );
      },
    );
    r.on('error', reject);
    r.end(body);
  });
}

void describe('local API', () => {
  let dir = '';
  let socketPath = '';
  let server: LocalApiServer;
  let connected = true;
  const attachments = new FakeAttachments();
  const client = (): AgentClient => new AgentClient({ socketPath, connectBudgetMs: 0 });
  const req = (ifname: string): AttachRequest => ({
    network: 'svc',
    containerId: 'c1',
    ifname,
    netns: '/var/run/netns/x',
    mode: 'auto',
    ips: [],
    routes: [],
  });

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-api-'));
    socketPath = path.join(dir, 'run', 'agent.sock');
    server = new LocalApiServer({ attachments, vppConnected: () => connected, serviceMap: () => MAP });
    await server.listen(socketPath);
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  void it('listens on a socket only its owner can use, in a directory only its owner can enter', async () => {
    const s = await stat(socketPath);
    assert.ok(s.isSocket());
    assert.equal(s.mode & 0o777, 0o600);
    assert.equal((await stat(path.dirname(socketPath))).mode & 0o777, 0o700);
  });

  void it('refuses a body larger than it reads, declared or streamed, with code 7', async () => {
    const big = JSON.stringify({ pad: 'x'.repeat(MAX_BODY_BYTES) });
    const declared = await call(socketPath, 'POST', '/v1/attachments', big);
    assert.equal(declared.status, 400);
    assert.match((declared.body as { msg: string }).msg, /larger than 65536 bytes/);
    const chunked = await call(socketPath, 'POST', '/v1/attachments', big, {
      'transfer-encoding': 'chunked',
    });
    assert.equal((chunked.body as { code: number }).code, 7);
    assert.equal(attachments.calls.filter((c) => c.startsWith('attach')).length, 0, 'nothing attached');
  });

  void it(`closes connections beyond ${MAX_CONNECTIONS} at once, and serves again once they go`, async () => {
    const open: Socket[] = [];
    try {
      for (let i = 0; i < MAX_CONNECTIONS; i++) {
        const sock = connect(socketPath);
        await new Promise<void>((resolve, reject) => sock.once('connect', resolve).once('error', reject));
        open.push(sock);
      }
      // The kernel accepts the next one; the server closes it at once without an answer.
      const extra = connect(socketPath);
      extra.on('error', () => undefined); // EPIPE or ECONNRESET: the server has closed it
      const received: Buffer[] = [];
      extra.on('data', (b: Buffer) => received.push(b));
      extra.write('GET /v1/status HTTP/1.1\r\nhost: agent\r\n\r\n');
      await new Promise<void>((resolve) => extra.once('close', () => resolve()));
      assert.equal(Buffer.concat(received).length, 0);
    } finally {
      for (const s of open) s.destroy();
    }
    await server.idle();
    await client().status();
  });

  void it(`closes a connection that has not sent a whole request within ${REQUEST_TIMEOUT_MS / 1000} s`, async () => {
    // A peer that sends nothing, half a request line, or headers and half a body (slowloris) holds
    // one of the socket's few connections only that long.
    const started = Date.now();
    const closedAfter = (data: string): Promise<number> =>
      new Promise((resolve) => {
        const sock = connect(socketPath);
        sock.on('error', () => undefined);
        sock.resume(); // reads the 408 and the end after it
        sock.once('connect', () => sock.write(data));
        sock.once('close', () => resolve(Date.now() - started));
        setTimeout(() => sock.destroy(), REQUEST_TIMEOUT_MS + 5_000).unref();
      });
    const times = await Promise.all([
      closedAfter(''),
      closedAfter('POST /v1/attachments HTTP/1.1\r\n'),
      closedAfter('POST /v1/attachments HTTP/1.1\r\nhost: agent\r\ncontent-length: 100\r\n\r\n{"ne'),
    ]);
    for (const ms of times) assert.ok(ms < REQUEST_TIMEOUT_MS + 2_000, `closed after ${ms} ms`);
    assert.equal(attachments.calls.filter((c) => c.startsWith('attach')).length, 0, 'nothing attached');
  });

  void it('serves the attachment routes the plugin calls', async () => {
    const answer = await client().attach(req('net1'));
    assert.equal(answer.mode, 'veth');
    const state = await client().getAttachment({
      containerId: 'c1',
      ifname: 'net1',
      netns: '/var/run/netns/x',
    });
    assert.deepEqual(state.podInterface.addresses, ['169.254.169.103/24']);
    await client().detach({ containerId: 'c1', ifname: 'net1', netns: '' });
    await client().gc({ network: 'svc', validAttachments: [{ containerID: 'c2', ifname: 'net1' }] });
    assert.deepEqual(attachments.calls.slice(-4), ['attach c1', 'check c1', 'detach c1 net1 ', 'gc svc 1']);
  });

  void it("passes the manager's CNI errors through and turns anything else into 999", async () => {
    const code = async (p: Promise<unknown>): Promise<number> => {
      const err = await p.then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(err instanceof CniError, String(err));
      return err.code;
    };
    assert.equal(await code(client().attach(req('taken'))), 100);
    assert.equal(await code(client().attach(req('boom'))), 999);
    assert.equal(
      await code(client().getAttachment({ containerId: 'missing', ifname: 'net1', netns: '' })),
      101,
    );
  });

  void it('answers STATUS with 50 while VPP is not connected', async () => {
    await client().status();
    connected = false;
    try {
      const err = await client()
        .status()
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      assert.ok(err instanceof CniError && err.code === CniErrorCode.PLUGIN_NOT_AVAILABLE);
    } finally {
      connected = true;
    }
  });

  void it('serves the service map, and rejects malformed requests with code 7', async () => {
    assert.deepEqual(await call(socketPath, 'GET', SERVICE_MAP_PATH), { status: 200, body: MAP });
    const noKey = await call(socketPath, 'DELETE', '/v1/attachments?ifname=net1');
    assert.equal(noKey.status, 400);
    assert.equal((noKey.body as { code: number }).code, 7);
    for (const bad of ['..%2F..%2Fetc', 'a%0Ab', '-x']) {
      const badKey = await call(socketPath, 'GET', `/v1/attachments?containerId=${bad}&ifname=net1`);
      assert.equal(badKey.status, 400, bad);
      assert.equal((badKey.body as { code: number }).code, 7, bad);
    }
    const badGc = await call(socketPath, 'POST', '/v1/gc', JSON.stringify({ validAttachments: [] }));
    assert.equal((badGc.body as { code: number }).code, 7, 'GC must name its network');
    const notJson = await call(socketPath, 'POST', '/v1/attachments', '{');
    assert.equal((notJson.body as { code: number }).code, AgentErrorCode.DECODING_FAILURE);
    assert.equal((await call(socketPath, 'PUT', '/v1/status')).status, 405);
    assert.equal((await call(socketPath, 'GET', '/v2/nothing')).status, 404);
  });

  void it('refuses to take over the socket of a live agent', async () => {
    const second = new LocalApiServer({ attachments, vppConnected: () => true, serviceMap: () => [] });
    await assert.rejects(second.listen(socketPath), /another process/);
  });
});

void describe('local API, service-map socket', () => {
  let dir = '';
  let socketPath = '';
  let server: LocalApiServer;
  const attachments = new FakeAttachments();

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-map-'));
    socketPath = path.join(dir, 'services', 'service-map.sock');
    server = new LocalApiServer(
      { attachments, vppConnected: () => true, serviceMap: () => MAP },
      'service-map',
    );
    await server.listen(socketPath);
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  void it('lets any local user read the map: socket 0666, directory 0755', async () => {
    assert.equal((await stat(socketPath)).mode & 0o777, 0o666);
    assert.equal((await stat(path.dirname(socketPath))).mode & 0o777, 0o755);
    assert.deepEqual(await call(socketPath, 'GET', SERVICE_MAP_PATH), { status: 200, body: MAP });
  });

  void it('refuses attach, detach, gc and check with code 104, doing nothing', async () => {
    const hostNetns: AttachRequest = {
      network: 'vppnet-metadata',
      containerId: 'evil',
      ifname: 'net9',
      netns: '/proc/self/ns/net',
      mode: 'veth',
      ips: [{ address: '169.254.169.254/24' }],
      routes: [],
    };
    const agent = new AgentClient({ socketPath, connectBudgetMs: 0 });
    for (const attempt of [
      agent.attach(hostNetns),
      agent.detach({ containerId: 'c1', ifname: 'net1', netns: '' }),
      agent.gc({ network: 'vppnet-metadata', validAttachments: [] }),
      agent.getAttachment({ containerId: 'c1', ifname: 'net1', netns: '' }),
      agent.status(),
    ])
      await assert.rejects(
        attempt,
        (e: unknown) => e instanceof CniError && e.code === AgentErrorCode.NOT_ON_THIS_SOCKET,
      );
    const raw = await call(socketPath, 'POST', '/v1/attachments', JSON.stringify(hostNetns));
    assert.equal(raw.status, 403);
    assert.match((raw.body as { msg: string }).msg, /serves GET \/v1\/service-map only/);
    assert.deepEqual(attachments.calls, []);
  });
});

void describe('local API, privileged directory', () => {
  void it('tightens a directory it finds open to 0700, and refuses a symlinked one', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-priv-'));
    const api = new LocalApiServer({
      attachments: new FakeAttachments(),
      vppConnected: () => true,
      serviceMap: () => [],
    });
    try {
      const open = path.join(dir, 'open');
      await mkdir(open);
      await chmod(open, 0o777);
      await api.listen(path.join(open, 'agent.sock'));
      assert.equal((await stat(open)).mode & 0o777, 0o700);
      await api.close();
      await symlink(open, path.join(dir, 'link'));
      await assert.rejects(
        api.listen(path.join(dir, 'link', 'agent.sock')),
        /not a directory \(a symlink\?\)/,
      );
    } finally {
      await api.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

void describe('openServices', () => {
  void it('wires a local API that says so while VPP is away', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-open-'));
    const client = new VppClient({ socketPath: path.join(dir, 'no-vpp.sock'), healthCheckIntervalMs: 0 });
    const host: HostLinks = {
      createVeth: () => Promise.reject(new Error('unexpected')),
      deleteVeth: () => Promise.reject(new Error('unexpected')),
      listVeths: () => Promise.resolve([]),
      keepIsolated: () => Promise.reject(new Error('unexpected')),
    };
    const opened = await openServices({
      client,
      host,
      hostLinkOwner: 'vppnet:test',
      stateDir: path.join(dir, 'state'),
      services: () => undefined,
    });
    const socketPath = path.join(dir, 'agent.sock');
    await opened.localApi.listen(socketPath);
    try {
      const agent = new AgentClient({ socketPath, connectBudgetMs: 0 });
      await assert.rejects(agent.status(), (e: unknown) => e instanceof CniError && e.code === 50);
      const req: AttachRequest = {
        network: 'svc',
        containerId: 'c',
        ifname: 'net1',
        netns: '/var/run/netns/x',
        mode: 'veth',
        ips: [],
        routes: [],
      };
      await assert.rejects(agent.attach(req), (e: unknown) => e instanceof CniError && e.code === 11);
      await agent.detach({ containerId: 'c', ifname: 'net1', netns: '' });
      assert.equal(opened.runtime.attachments, opened.manager);
      assert.deepEqual(opened.addresses.serviceMap(), []);
    } finally {
      await opened.localApi.close();
      await client.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
