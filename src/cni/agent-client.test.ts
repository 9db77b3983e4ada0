import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { ManualTimers } from '../util/testing/manual-timers.js';
import { AgentClient } from './agent-client.js';
import type { AttachRequest } from '../agent-api/protocol.js';
import { CniError } from './errors.js';
import { FakeAgentReply, FakeAgentServer } from './testing/fake-agent-server.js';

const REQUEST: AttachRequest = {
  containerId: 'c1',
  ifname: 'eth1',
  netns: '/var/run/netns/pod',
  network: 'services',
  ips: [{ address: '169.254.169.103/24', gateway: '169.254.169.1' }],
  routes: [{ dst: '169.252.252.0/24', gw: '169.254.169.1' }],
  mode: 'auto',
};

async function rejectsWithCode(promise: Promise<unknown>, code: number): Promise<CniError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof CniError, `expected a CniError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    return err;
  }
  assert.fail('expected a rejection');
}

/**
 * Runs the client's pauses, one at a time as it arms them, until `call` settles; returns the
 * pauses' lengths. The connection attempts in between are real.
 */
async function runPauses(timers: ManualTimers, call: Promise<unknown>): Promise<number[]> {
  let settled = false;
  const done = call.then(
    () => (settled = true),
    () => (settled = true),
  );
  const pauses: number[] = [];
  while (!settled) {
    if (timers.armed.length > 0) pauses.push(timers.runNext());
    else await Promise.race([timers.whenArmed(timers.armedTotal + 1), done]);
  }
  return pauses;
}

function listenRaw(socketPath: string, handler: Parameters<typeof createServer>[1]): Promise<Server> {
  const server = createServer(handler);
  return new Promise((resolve) => server.listen(socketPath, () => resolve(server)));
}

void describe('AgentClient', () => {
  let dir = '';
  let n = 0;
  const socket = (): string => join(dir, `agent-${++n}.sock`);
  const servers: { close(): unknown }[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vppnet-agent-client-'));
  });
  after(async () => {
    for (const server of servers) server.close();
    await rm(dir, { recursive: true, force: true });
  });

  void it('sends each call to its route and decodes the answer', async () => {
    const agent = await FakeAgentServer.start(socket());
    servers.push(agent);
    const client = new AgentClient({ socketPath: agent.socketPath });
    const attached = await client.attach(REQUEST);
    assert.equal(attached.mode, 'veth');
    assert.equal(attached.interfaces[1]?.sandbox, '/var/run/netns/pod');
    const state = await client.getAttachment({
      containerId: 'c1',
      ifname: 'eth1',
      netns: '/var/run/netns/pod',
    });
    assert.deepEqual(state.podInterface.addresses, ['169.254.169.103/24']);
    await client.gc({ network: 'services', validAttachments: [] });
    await client.detach({ containerId: 'c1', ifname: 'eth1', netns: '' });
    assert.deepEqual(await client.status(), { vpp: 'connected' });
    assert.deepEqual(
      agent.calls.map((call) => `${call.method} ${call.path}`),
      [
        'POST /v1/attachments',
        'GET /v1/attachments',
        'POST /v1/gc',
        'DELETE /v1/attachments',
        'GET /v1/status',
      ],
    );
    assert.deepEqual(agent.calls[0]?.body, REQUEST);
    assert.deepEqual(agent.calls[3]?.query, { containerId: 'c1', ifname: 'eth1', netns: '' });
  });

  void it('waits for an agent that is restarting', async () => {
    const path = socket();
    const timers = new ManualTimers();
    const client = new AgentClient({ socketPath: path, connectBudgetMs: 5_000, retryDelayMs: 20, timers });
    const pending = client.status();
    // Two attempts find no socket; each failure arms a pause, twice as long as the last.
    await timers.whenArmed(1);
    assert.deepEqual(timers.armed, [20]);
    timers.runNext();
    await timers.whenArmed(2);
    assert.deepEqual(timers.armed, [40]);
    servers.push(await FakeAgentServer.start(path));
    timers.runNext();
    assert.deepEqual(await pending, { vpp: 'connected' });
    assert.equal(timers.armedTotal, 2, 'the third attempt reached the agent');
  });

  void it('gives up with code 11 when the socket stays missing for the budget', async () => {
    const timers = new ManualTimers();
    const client = new AgentClient({ socketPath: socket(), connectBudgetMs: 300, retryDelayMs: 20, timers });
    const started = timers.now();
    const attach = rejectsWithCode(client.attach(REQUEST), 11);
    const pauses = await runPauses(timers, attach);
    const err = await attach;
    assert.deepEqual(pauses, [20, 40, 80, 160], 'doubling pauses, until the budget is spent');
    assert.equal(timers.now() - started, 300);
    assert.equal(err.details, 'ENOENT on 5 attempt(s) over 300 ms');
  });

  void it('cuts the last pause short at the end of the budget', async () => {
    const timers = new ManualTimers();
    const client = new AgentClient({ socketPath: socket(), connectBudgetMs: 100, retryDelayMs: 20, timers });
    const status = rejectsWithCode(client.status(), 11);
    assert.deepEqual(await runPauses(timers, status), [20, 40, 40]);
    assert.equal((await status).details, 'ENOENT on 4 attempt(s) over 100 ms');
  });

  void it('treats a refused connection like a missing socket', async () => {
    // Connecting to a path that is not a listening socket is refused (ECONNREFUSED).
    const path = socket();
    await writeFile(path, '');
    const client = new AgentClient({ socketPath: path, connectBudgetMs: 100, retryDelayMs: 20 });
    const err = await rejectsWithCode(client.status(), 11);
    assert.match(err.details ?? '', /ECONNREFUSED/);
  });

  void it('makes a single attempt when asked not to wait', async () => {
    const timers = new ManualTimers();
    const client = new AgentClient({ socketPath: socket(), connectBudgetMs: 10_000, timers });
    const err = await rejectsWithCode(
      client.detach({ containerId: 'c', ifname: 'eth1', netns: '' }, { waitForAgent: false }),
      11,
    );
    assert.equal(err.details, 'ENOENT on 1 attempt(s) over 0 ms');
    assert.equal(timers.armedTotal, 0, 'no pause was armed');
  });

  void it("passes the agent's error body through unchanged", async () => {
    const agent = await FakeAgentServer.start(socket(), {
      attach: () => {
        throw new FakeAgentReply(409, { code: 100, msg: 'eth1 exists', details: 'in /var/run/netns/pod' });
      },
    });
    servers.push(agent);
    const err = await rejectsWithCode(new AgentClient({ socketPath: agent.socketPath }).attach(REQUEST), 100);
    assert.equal(err.msg, 'eth1 exists');
    assert.equal(err.details, 'in /var/run/netns/pod');
  });

  void it('reports an answer without an error body as 999 with the HTTP status', async () => {
    const path = socket();
    servers.push(await listenRaw(path, (_req, res) => res.writeHead(502).end('bad gateway')));
    const err = await rejectsWithCode(new AgentClient({ socketPath: path }).status(), 999);
    assert.match(err.msg, /HTTP 502/);
  });

  void it('reports a success answer of the wrong shape as 999', async () => {
    const path = socket();
    servers.push(await listenRaw(path, (_req, res) => res.writeHead(200).end('{"interfaces":"no"}')));
    const err = await rejectsWithCode(new AgentClient({ socketPath: path }).attach(REQUEST), 999);
    assert.match(err.details ?? '', /interfaces: must be a list/);
  });

  void it('does not wait forever for a hung agent (code 11)', async () => {
    const path = socket();
    const server = await listenRaw(path, () => undefined);
    servers.push({ close: () => server.closeAllConnections() }, server);
    const client = new AgentClient({ socketPath: path, requestTimeoutMs: 200 });
    const err = await rejectsWithCode(client.attach(REQUEST), 11);
    assert.match(err.details ?? '', /no answer within 200 ms/);
  });
});
