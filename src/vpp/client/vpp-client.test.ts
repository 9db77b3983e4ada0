/**
 * The client suite. Runs against the simulator by default and, unchanged, against a real VPP
 * when VPP_API_SOCKET is set; tests that need fault injection are skipped there, saying so.
 */
import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import { after, before, describe, it } from 'node:test';
import { setImmediate as macrotask } from 'node:timers/promises';
import {
  REAL_VPP_SOCKET,
  SIM_ONLY,
  startVppTarget,
  type VppTarget,
} from '../../../test/support/vpp-target.js';
import { msg } from '../messages/index.js';
import type { ConnectionState } from './connection-state.js';
import type { SubscriptionItem } from './event-subscription.js';
import { ignoreRetval, VppRetvalError } from './retval-error.js';
import { ManualTimers } from '../../util/testing/manual-timers.js';
import { UnixSocketTransport } from '../transport/unix-socket-transport.js';
import { VppClient, type VppClientOptions } from './vpp-client.js';

const TEST_TABLE = 4242;
/** A dumpEach field selection: compiled once, so a constant. */
const ROUTE_PREFIX_AND_PATHS = {
  route: { prefix: { len: true, address: { af: true, un: { ip4: true } } }, paths: { sw_if_index: true } },
} as const;

function ip4(n: number): string {
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

async function withClient<T>(
  target: VppTarget,
  opts: VppClientOptions,
  fn: (c: VppClient) => Promise<T>,
): Promise<T> {
  const client = new VppClient({ socketPath: target.socketPath, clientName: 'vppnet-test', ...opts });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

function waitForState(client: VppClient, state: ConnectionState, timeoutMs = 5000): Promise<void> {
  if (client.state === state) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`state ${state} not reached (now ${client.state})`)),
      timeoutMs,
    );
    const on = (to: ConnectionState): void => {
      if (to === state) {
        clearTimeout(timer);
        client.off('state', on);
        resolve();
      }
    };
    client.on('state', on);
  });
}

describe('VppClient', () => {
  let target: VppTarget;
  before(async () => {
    target = await startVppTarget();
  });
  after(async () => {
    await target.close();
  });

  it('connects, reports its states, and answers show_version and control_ping', async () => {
    const client = new VppClient({ socketPath: target.socketPath });
    const states: string[] = [];
    client.on('state', (to, from) => states.push(`${from}->${to}`));
    await client.connect();
    const version = await client.call(msg.show_version, {});
    assert.equal(version.retval, 0);
    assert.match(version.version, /\d/);
    await client.ping();
    assert.ok(client.vppPid > 0);
    await client.close();
    assert.deepEqual(states, ['idle->connecting', 'connecting->ready', 'ready->closing', 'closing->closed']);
    await assert.rejects(client.ping(), { code: 'VPPNET_ERR_CLOSED' });
  });

  it('matches 10k pipelined requests to their replies', async () => {
    await withClient(target, {}, async (client) => {
      const replies = await Promise.all(
        Array.from({ length: 10_000 }, () => client.call(msg.control_ping, {})),
      );
      assert.equal(replies.length, 10_000);
      const contexts = new Set(replies.map((r) => r.context));
      assert.equal(contexts.size, 10_000, 'each reply answers its own request');
      assert.equal(client.pendingCount, 0);
    });
  });

  it("publishes each request's duration finer than a millisecond", async () => {
    // VPP answers a control_ping in tens of microseconds: at the wall clock's millisecond the
    // request metrics' sub-millisecond buckets (agent/metrics.ts) would only ever see 0.
    const durations: number[] = [];
    const onRequest = (m: unknown): void => void durations.push((m as { durationMs: number }).durationMs);
    diagnostics.subscribe('vppnet:vpp:request', onRequest);
    try {
      await withClient(target, {}, async (client) => {
        for (let i = 0; i < 50; i++) await client.call(msg.control_ping, {});
      });
    } finally {
      diagnostics.unsubscribe('vppnet:vpp:request', onRequest);
    }
    assert.ok(durations.length >= 50);
    assert.ok(durations.every((d) => d >= 0));
    assert.ok(
      durations.some((d) => !Number.isInteger(d)),
      `durations at a millisecond's resolution: ${durations.slice(0, 10).join(', ')}`,
    );
  });

  it('collects a 10k-entry dump ended by control_ping', async () => {
    await withClient(target, {}, async (client) => {
      await client.call(msg.ip_table_add_del, {
        is_add: true,
        table: { table_id: TEST_TABLE, is_ip6: false, name: 'vppnet-test' },
      });
      try {
        await Promise.all(
          Array.from({ length: 10_000 }, (_, i) =>
            client.call(msg.ip_route_add_del, {
              is_add: true,
              route: {
                table_id: TEST_TABLE,
                prefix: { address: { af: 0, un: { ip4: ip4(i) } }, len: 32 },
                paths: [{ sw_if_index: 0xffffffff, table_id: 0, proto: 0, type: 0 }],
              },
            }),
          ),
        );
        const routes = await client.dump(msg.ip_route_dump, {
          table: { table_id: TEST_TABLE, is_ip6: false },
        });
        const prefixes = new Set(routes.map((r) => `${r.route.prefix.address.un.ip4}/${r.route.prefix.len}`));
        for (let i = 0; i < 10_000; i += 997)
          assert.ok(prefixes.has(`${ip4(i)}/32`), `route ${ip4(i)}/32 dumped`);
        assert.ok(routes.length >= 10_000);
        // The streaming form sees the same entries without the client holding them.
        let streamed = 0;
        const count = await client.dumpEach(
          msg.ip_route_dump,
          { table: { table_id: TEST_TABLE, is_ip6: false } },
          (d) => {
            if (d.route.table_id === TEST_TABLE) streamed++;
          },
        );
        assert.equal(count, routes.length);
        assert.equal(streamed, routes.length);
        // With a field selection: the same prefixes and paths' next hops, and nothing else built.
        const selected: string[] = [];
        await client.dumpEach(
          msg.ip_route_dump,
          { table: { table_id: TEST_TABLE, is_ip6: false } },
          (d) => {
            assert.deepEqual(Object.keys(d.route), ['prefix', 'paths']);
            assert.deepEqual(Object.keys(d.route.prefix.address.un), ['ip4']);
            selected.push(
              `${d.route.prefix.address.un.ip4}/${d.route.prefix.len} ${d.route.paths.map((p) => p.sw_if_index).join()}`,
            );
          },
          { fields: ROUTE_PREFIX_AND_PATHS },
        );
        assert.deepEqual(
          selected,
          routes.map(
            (r) =>
              `${r.route.prefix.address.un.ip4}/${r.route.prefix.len} ${r.route.paths.map((p) => p.sw_if_index).join()}`,
          ),
        );
        // A reader that stops after every socket read (the drift check's read gate) gets the
        // whole dump, in order, while VPP keeps answering another client meanwhile.
        let pauses = 0;
        let pingedWhilePaused = false;
        const paced = await withClient(
          target,
          {
            readGate: () => {
              pauses++;
              return client.ping().then(() => {
                pingedWhilePaused = true;
              });
            },
          },
          async (reader) => {
            const seen: string[] = [];
            await reader.dumpEach(
              msg.ip_route_dump,
              { table: { table_id: TEST_TABLE, is_ip6: false } },
              (d) => seen.push(`${d.route.prefix.address.un.ip4}/${d.route.prefix.len}`),
            );
            return seen;
          },
        );
        assert.deepEqual(
          paced,
          routes.map((r) => `${r.route.prefix.address.un.ip4}/${r.route.prefix.len}`),
        );
        assert.ok(pauses > 1, `read in ${pauses} pieces`);
        assert.ok(pingedWhilePaused);
      } finally {
        // Routes first: VPP leaks the API routes of a table deleted with them inside.
        await Promise.all(
          Array.from({ length: 10_000 }, (_, i) =>
            client
              .call(msg.ip_route_add_del, {
                is_add: false,
                route: {
                  table_id: TEST_TABLE,
                  prefix: { address: { af: 0, un: { ip4: ip4(i) } }, len: 32 },
                  paths: [{ sw_if_index: 0xffffffff, table_id: 0, proto: 0, type: 0 }],
                },
              })
              .catch(ignoreRetval),
          ),
        );
        await client.call(msg.ip_table_add_del, {
          is_add: false,
          table: { table_id: TEST_TABLE, is_ip6: false },
        });
      }
    });
  });

  it('turns a non-zero retval into an error naming the message, the number and its meaning', async () => {
    await withClient(target, {}, async (client) => {
      const err = await client
        .call(msg.sw_interface_set_flags, { sw_if_index: 99_999, flags: 1 })
        .catch((e: unknown) => e);
      assert.ok(err instanceof VppRetvalError);
      assert.equal(err.code, 'VPPNET_ERR_RETVAL');
      assert.equal(err.messageName, 'sw_interface_set_flags');
      assert.equal(err.retval, -2);
      assert.equal(err.errorName, 'INVALID_SW_IF_INDEX');
      // The reply as VPP sent it stays reachable, for callers that expect a retval.
      assert.equal(err.reply?.retval, -2);
      assert.equal(client.pendingCount, 0);
    });
  });

  it('delivers interface events to a subscription', async () => {
    await withClient(target, {}, async (client) => {
      const sub = await client.subscribe(
        msg.want_interface_events,
        { enable_disable: 1, pid: process.pid },
        msg.sw_interface_event,
      );
      const { sw_if_index } = await client.call(msg.create_loopback_instance, { is_specified: false });
      await client.call(msg.sw_interface_set_flags, { sw_if_index, flags: 1 });
      await client.call(msg.delete_loopback, { sw_if_index });
      const seen: { sw_if_index: number; flags: number; deleted: boolean }[] = [];
      for await (const item of sub) {
        assert.equal(item.type, 'event');
        if (item.type === 'event' && item.event.sw_if_index === sw_if_index) seen.push(item.event);
        if (seen.some((e) => e.deleted)) break;
      }
      assert.ok(
        seen.some((e) => (e.flags & 1) === 1),
        'admin-up event',
      );
      assert.ok(seen.at(-1)?.deleted, 'delete event last');
      assert.ok(sub.closed);
    });
  });

  it('runs CLI commands for diagnostics', async () => {
    await withClient(target, {}, async (client) => {
      assert.match(await client.cli('show version'), /vpp/i);
    });
  });

  it('refuses a queue beyond maxPending at once', async () => {
    await withClient(target, { maxPending: 10 }, async (client) => {
      const results = await Promise.allSettled(
        Array.from({ length: 11 }, () => client.call(msg.control_ping, {})),
      );
      const rejected = results.filter((r) => r.status === 'rejected');
      assert.equal(rejected.length, 1);
      assert.equal(
        ((rejected[0] as PromiseRejectedResult).reason as { code?: string }).code,
        'VPPNET_ERR_QUEUE_FULL',
      );
    });
  });

  it('picks the first message version the connected VPP offers', async () => {
    await withClient(target, {}, (client) => {
      assert.ok(client.supports(msg.sr_policy_add));
      const picked = client.pick([msg.sr_policy_add_v2, msg.sr_policy_add]);
      assert.ok(picked === msg.sr_policy_add_v2 || picked === msg.sr_policy_add);
      return Promise.resolve();
    });
  });

  it('fails to connect with ENOENT when no VPP listens', async () => {
    const client = new VppClient({ socketPath: '/nonexistent/vppnet/api.sock' });
    await assert.rejects(client.connect(), { code: 'ENOENT' });
    assert.equal(client.state, 'closed');
  });
});

describe('VppClient under faults (simulator)', { skip: SIM_ONLY }, () => {
  let target: VppTarget;
  before(async () => {
    target = await startVppTarget();
  });
  after(async () => {
    await target.close();
  });

  it('times out a request VPP never answers at its deadline, leaks no timer, then carries on', async () => {
    const timers = new ManualTimers();
    await withClient(target, { requestTimeoutMs: 150, healthCheckIntervalMs: 0, timers }, async (client) => {
      const sim = target.sim!;
      sim.stallReplies(true);
      const result: { outcome?: unknown } = {};
      const settled = client.call(msg.control_ping, {}).then(
        () => (result.outcome = 'answered'),
        (err: unknown) => (result.outcome = err),
      );
      timers.advance(149);
      await macrotask(); // lets a rejection, had there been one, reach `result`
      assert.equal(Object.hasOwn(result, 'outcome'), false, 'still waiting 1 ms before its deadline');
      // The deadline sweep runs every requestTimeoutMs / 20 = 7 ms: the request fails at the
      // first sweep at or after its deadline.
      timers.advance(7);
      await settled;
      const err = result.outcome as Error & { code?: string };
      assert.ok(err instanceof Error);
      assert.equal(err.code, 'VPPNET_ERR_TIMEOUT');
      assert.match(err.message, /^control_ping: no reply from VPP after 154 ms$/);
      assert.equal(client.pendingCount, 0);
      assert.equal(timers.armed.length, 0, 'the deadline sweep stops with nothing pending');
      // The stalled reply now arrives before the next one and is dropped: the next ping gets its own.
      sim.stallReplies(false);
      const before = client.vppPid;
      await client.ping();
      assert.ok(client.vppPid > 0 && (before === 0 || client.vppPid === before));
      assert.equal(client.pendingCount, 0);
      timers.advance(7);
      assert.equal(timers.armed.length, 0, 'the sweep after the answer finds nothing and stops');
    });
  });

  it('times out a request still queued while reconnecting, naming the state', async () => {
    const sim = target.sim!;
    const timers = new ManualTimers();
    const client = new VppClient({
      socketPath: target.socketPath,
      requestTimeoutMs: 1000,
      retryStrategy: () => 5000,
      healthCheckIntervalMs: 0,
      timers,
    });
    await client.connect();
    const reconnecting = waitForState(client, 'reconnecting');
    sim.dropConnections();
    await reconnecting;
    assert.deepEqual(timers.dueIn, [5000], 'only the reconnect backoff is armed');
    const queued = assert.rejects(client.call(msg.show_version, {}), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'VPPNET_ERR_TIMEOUT');
      assert.match(err.message, /^show_version: still queued \(client reconnecting\) after 1000 ms$/);
      return true;
    });
    timers.advance(1000);
    await queued;
    assert.equal(client.pendingCount, 0);
    const ready = waitForState(client, 'ready');
    timers.advance(4000); // the backoff ends: the client reconnects
    await ready;
    await client.ping();
    await client.close();
  });

  it('reconnects after VPP restarts: in-flight requests fail, ids are re-resolved, subscriptions resume', async () => {
    const sim = target.sim!;
    const client = new VppClient({
      socketPath: target.socketPath,
      retryStrategy: () => 20,
      healthCheckIntervalMs: 0,
    });
    await client.connect();
    const sub = await client.subscribe(
      msg.want_interface_events,
      { enable_disable: 1, pid: process.pid },
      msg.sw_interface_event,
    );
    const iterator = sub[Symbol.asyncIterator]();
    sim.stallReplies(true);
    // The assertion is attached now: the rejection comes while restart() is still running.
    const inflight = assert.rejects(client.call(msg.show_version, {}), { code: 'VPPNET_ERR_CONN_LOST' });
    const ready = new Promise<boolean>((resolve) => client.once('ready', (info) => resolve(info.reconnect)));
    await sim.restart({ reshuffleIds: true, downtimeMs: 100 });
    sim.stallReplies(false);
    await inflight;
    // Issued while reconnecting: waits in the offline queue, goes out with the new ids.
    const queued = client.call(msg.show_version, {});
    assert.equal(await ready, true);
    assert.equal((await queued).retval, 0);
    assert.deepEqual((await iterator.next()).value, { type: 'resync', reason: 'reconnected' });
    const { sw_if_index } = await client.call(msg.create_loopback_instance, {});
    const next: IteratorResult<SubscriptionItem<{ sw_if_index: number }>> = await iterator.next();
    assert.ok(!next.done && next.value.type === 'event', 'an event follows the resync');
    assert.equal(next.value.event.sw_if_index, sw_if_index);
    await client.close();
  });

  it('fails at once while disconnected when the offline queue is off', async () => {
    const sim = target.sim!;
    const timers = new ManualTimers();
    const client = new VppClient({
      socketPath: target.socketPath,
      offlineQueue: false,
      retryStrategy: () => 50,
      healthCheckIntervalMs: 0,
      timers,
    });
    await client.connect();
    const reconnecting = waitForState(client, 'reconnecting');
    sim.dropConnections();
    await reconnecting;
    await assert.rejects(client.call(msg.control_ping, {}), { code: 'VPPNET_ERR_NOT_CONNECTED' });
    const ready = waitForState(client, 'ready');
    timers.advance(50);
    await ready;
    await client.ping();
    await client.close();
  });

  it('notices a VPP that stopped answering with its health check and reconnects', async () => {
    const sim = target.sim!;
    const timers = new ManualTimers();
    const client = new VppClient({
      socketPath: target.socketPath,
      healthCheckIntervalMs: 50,
      healthCheckTimeoutMs: 100,
      retryStrategy: () => 10,
      timers,
    });
    await client.connect();
    const states: string[] = [];
    client.on('state', (to) => states.push(to));
    sim.stallReplies(true);
    timers.advance(50); // the health ping goes out
    timers.advance(100); // 100 ms without an answer: not yet more than the timeout
    await macrotask();
    assert.deepEqual(states, [], 'still ready at the health timeout itself');
    const reconnecting = waitForState(client, 'reconnecting');
    timers.advance(50); // the next check finds the ping unanswered for 150 ms
    await reconnecting;
    sim.stallReplies(false);
    const ready = waitForState(client, 'ready');
    timers.advance(10); // the backoff
    await ready;
    await client.ping();
    await client.close();
  });

  it('makes each connection attempt with the injected transport factory', async () => {
    const sim = target.sim!;
    const made: string[] = [];
    const client = new VppClient({
      socketPath: target.socketPath,
      retryStrategy: () => 0,
      healthCheckIntervalMs: 0,
      transportFactory: (t) => {
        made.push(t.path);
        return new UnixSocketTransport({ path: t.path, connectTimeoutMs: t.connectTimeoutMs });
      },
    });
    await client.connect();
    const reconnected = new Promise<boolean>((resolve) =>
      client.once('ready', (info) => resolve(info.reconnect)),
    );
    sim.dropConnections();
    assert.equal(await reconnected, true);
    assert.deepEqual(made, [target.socketPath, target.socketPath]);
    await client.close();
  });

  it('refuses a VPP whose messages changed CRC or are missing, listing every one', async () => {
    const sim = target.sim!;
    sim.changeCrc('sr_policy_add', 'deadbeef');
    sim.removeMessage('sr_steering_add_del');
    try {
      const client = new VppClient({
        socketPath: target.socketPath,
        requiredMessages: [msg.control_ping, msg.sr_policy_add, msg.sr_steering_add_del],
      });
      const err = await client.connect().catch((e: unknown) => e as Error & { code?: string });
      assert.equal(err?.code, 'VPPNET_ERR_INCOMPATIBLE');
      assert.match(err.message, /sr_policy_add: want crc 44ac92e8, VPP has deadbeef/);
      assert.match(err.message, /sr_steering_add_del: want crc e46b0a0f, VPP has none/);
      assert.equal(client.state, 'closed');
      // A client that can use either version picks what is there.
      await withClient(target, {}, (c) => {
        assert.equal(c.supports(msg.sr_policy_add), false);
        assert.equal(c.pick([msg.sr_policy_add, msg.sr_policy_add_v2]), msg.sr_policy_add_v2);
        return Promise.resolve();
      });
    } finally {
      await sim.restart({ reshuffleIds: false });
    }
  });

  it('says goodbye with sockclnt_delete on close', async () => {
    const sim = target.sim!;
    const client = new VppClient({ socketPath: target.socketPath });
    await client.connect();
    const before = sim.state.clients.length;
    await client.close();
    // The simulator, like VPP, frees the registration before it answers the sockclnt_delete
    // that close() waited for.
    assert.equal(sim.state.clients.length, before - 1);
    assert.ok((sim.state.requestCounts.get('sockclnt_delete') ?? 0) >= 1);
  });
});

describe('VppClient against a real VPP 26.06', () => {
  it(
    'ran the suite above against the VPP at VPP_API_SOCKET',
    {
      skip: REAL_VPP_SOCKET ? false : 'VPP_API_SOCKET is not set: the suite above ran against the simulator',
    },
    () => {
      assert.ok(REAL_VPP_SOCKET);
    },
  );
});
