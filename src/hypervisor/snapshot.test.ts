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
import { tags } from '../dataplane/keys.js';
import { RecordingVppApi } from '../vpp/client/testing/recording-vpp-api.js';
import { NO_INDEX } from '../vpp/messages/sentinels.js';

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

describe("loadSnapshot reads the IPv6 ports' static neighbours", () => {
  const ADDRESS_IP6 = msg.address_family_t.values.ADDRESS_IP6;
  const STATIC = msg.ip_neighbor_flags_t.values.IP_API_NEIGHBOR_FLAG_STATIC;
  /** Two VM ports in IPv6 table 10 (sw_if_index 1 and 2), each with a static neighbour; 3 is another interface. */
  function vpp(): RecordingVppApi {
    const neighbour = (swIfIndex: number, ip6: string, flags: number) => ({
      neighbor: {
        sw_if_index: swIfIndex,
        flags,
        mac_address: `02:00:00:00:00:0${swIfIndex}`,
        ip_address: { af: ADDRESS_IP6, un: { ip4: '0.0.0.0', ip6 } },
      },
    });
    const all = [
      neighbour(1, '2001:db8::1', STATIC),
      neighbour(2, '2001:db8::2', STATIC),
      neighbour(2, '2001:db8::22', 0),
      neighbour(3, '2001:db8::3', STATIC),
    ];
    return new RecordingVppApi({ state: 'ready' })
      .answerDump(msg.sw_interface_dump, () =>
        [1, 2].map((i) => ({
          sw_if_index: i,
          interface_name: `VirtualEthernet0/0/${i}`,
          tag: tags.vmPort(`vm${i}`),
        })),
      )
      .answer(msg.sw_interface_get_table, (input) => ({ vrf_id: input.is_ipv6 ? 10 : 0 }))
      .answer(msg.sw_interface_ip6_get_link_local_address, () => ({ ip: 'fe80::1' }))
      .answer(msg.macip_acl_interface_get, () => ({ count: 0, acls: [] }))
      .answerDump(msg.ip_neighbor_dump, (input) =>
        input.af !== ADDRESS_IP6
          ? []
          : all.filter((n) => input.sw_if_index === NO_INDEX || n.neighbor.sw_if_index === input.sw_if_index),
      );
  }
  const neighbourDumps = (api: RecordingVppApi): number[] =>
    api.requests.filter((r) => r.def === msg.ip_neighbor_dump).map((r) => r.input.sw_if_index as number);
  const staticNeighbours = (s: Awaited<ReturnType<typeof loadSnapshot>>): unknown =>
    [...s.interfaceFacts.values()].map((f) => [...(f.ip6Link?.staticNeighbors ?? [])]);

  it("from the services' one dump of every interface, with the services read", async () => {
    const api = vpp();
    const snapshot = await loadSnapshot(api, { externalInterfaces: [], sharedTables: [], services: true });
    assert.deepEqual(staticNeighbours(snapshot), [
      [['2001:db8::1', '02:00:00:00:00:01']],
      [['2001:db8::2', '02:00:00:00:00:02']],
    ]);
    // The IPv4 and the IPv6 dump of every interface, and no dump per port.
    assert.deepEqual(neighbourDumps(api), [NO_INDEX, NO_INDEX]);
  });

  it('with a dump per port, without the services', async () => {
    const api = vpp();
    const snapshot = await loadSnapshot(api, { externalInterfaces: [], sharedTables: [], services: false });
    assert.deepEqual(staticNeighbours(snapshot), [
      [['2001:db8::1', '02:00:00:00:00:01']],
      [['2001:db8::2', '02:00:00:00:00:02']],
    ]);
    assert.deepEqual(neighbourDumps(api).sort(), [1, 2]);
  });
});
