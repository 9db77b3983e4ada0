import assert from 'node:assert/strict';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { startVppTarget } from '../../test/support/vpp-target.js';
import type { VppApi } from '../vpp/client/vpp-api.js';
import { VppClient } from '../vpp/client/vpp-client.js';
import { msg } from '../vpp/messages/index.js';
import { vppPrefix } from '../dataplane/ip-values.js';
import { loadSnapshot } from './snapshot.js';
import type { SteeringEntries } from '../srv6/steering-entries.js';

/** A VPP connection that closed: every request fails, as VppClient's do once close() is called. */
function closedClient(): VppApi {
  const closed = (): Promise<never> => Promise.reject(new Error('client closed'));
  return new Proxy({} as VppApi, {
    get: (_target, name) => {
      if (name === 'supports') return () => true;
      if (name === 'then') return undefined;
      return closed;
    },
  });
}

describe('loadSnapshot on a connection that closes', () => {
  for (const steering of [true, false]) {
    it(`rejects once and leaves no rejection unhandled (steering ${steering ? 'read' : 'left out'})`, async () => {
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
      process.on('unhandledRejection', onUnhandled);
      try {
        await assert.rejects(
          loadSnapshot(closedClient(), {
            externalInterfaces: [],
            sharedTables: [],
            services: true,
            steering,
          }),
          /client closed/,
        );
        // Node reports unhandled rejections once the microtask queue drains: one macrotask later.
        await nextMacrotask();
        await nextMacrotask();
      } finally {
        process.off('unhandledRejection', onUnhandled);
      }
      // A rejection nobody handles ends the agent's process (Node's default): fleet mode's drift
      // check reads without steering, and an agent stopping under it closed its connection.
      assert.deepEqual(unhandled, []);
    });
  }
});

describe('loadSnapshot reads steering entries into columns', () => {
  it('reads each IPv6 entry back as it was added, those VPP reports as IPv4 (::/1) included', async () => {
    const target = await startVppTarget();
    const client = new VppClient({
      socketPath: target.socketPath,
      clientName: 'vppnet-test',
      healthCheckIntervalMs: 0,
    });
    await client.connect();
    const TABLE = 4242;
    const BSID = 'fc00:1:ff::4242';
    const ip6 = ['2001:db8:a:0:5054:ff:fe62:a01/128', '::/1', '8000::/1', '::5/128', '2001:db8:b::/64'];
    const steer = (prefix: string, isDel: boolean, ip4 = false): Promise<unknown> =>
      client.call(msg.sr_steering_add_del, {
        is_del: isDel,
        bsid_addr: BSID,
        table_id: TABLE,
        prefix: vppPrefix(prefix),
        traffic_type: ip4 ? msg.sr_steer_t.values.SR_STEER_API_IPV4 : msg.sr_steer_t.values.SR_STEER_API_IPV6,
      });
    const tables = (isAdd: boolean): Promise<unknown[]> =>
      Promise.all(
        [true, false].map((is_ip6) =>
          client.call(msg.ip_table_add_del, { is_add: isAdd, table: { table_id: TABLE, is_ip6, name: '' } }),
        ),
      );
    try {
      // The tables first: steering into a missing IPv6 table crashes VPP 26.06.
      await tables(true);
      await client.call(msg.sr_policy_add, {
        bsid_addr: BSID,
        is_encap: true,
        fib_table: 0,
        sids: { num_sids: 1, weight: 1, sids: ['fc00:2::4242', ...Array<string>(15).fill('::')] },
      });
      for (const prefix of ip6) await steer(prefix, false);
      await steer('10.42.0.0/16', false, true);
      const snapshot = await loadSnapshot(client, {
        externalInterfaces: [],
        sharedTables: [],
        services: false,
      });
      const list = (e: SteeringEntries): string[] =>
        Array.from({ length: e.size }, (_, i) => `${e.table(i)} ${e.prefix(i)} ${e.bsid(i)}`)
          .filter((x) => x.startsWith(`${TABLE} `))
          .sort();
      assert.equal(snapshot.steering6.family, 6);
      assert.deepEqual(list(snapshot.steering6), ip6.map((p) => `${TABLE} ${p} ${BSID}`).sort());
      assert.deepEqual(list(snapshot.steering), [`${TABLE} 10.42.0.0/16 ${BSID}`]);
    } finally {
      for (const prefix of ip6) await steer(prefix, true).catch(() => undefined);
      await steer('10.42.0.0/16', true, true).catch(() => undefined);
      await client.call(msg.sr_policy_del, { bsid_addr: BSID }).catch(() => undefined);
      await tables(false).catch(() => undefined);
      await client.close();
      await target.close();
    }
  });
});
