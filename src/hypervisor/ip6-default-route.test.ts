/**
 * An IPv6 default route through an appliance (docs/dual-stack.md): `::/0` as a remote route to
 * the appliance's node, and as the appliance port's allowed prefix on that node. Both are
 * installed as their two halves, ::/1 and 8000::/1: VPP 26.06 merges a route added to a table's
 * ::/0 entry with the default route's drop path and drops about half the flows (net/ip.ts
 * routedPrefixes). Runs on the simulator, and on a real VPP with VPP_API_SOCKET; the traffic
 * itself is in test/integration/tenant-edge-traffic.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startVppTarget, type VppTarget } from '../../test/support/vpp-target.js';
import { createUnderlay, removeUnderlay } from '../../test/support/underlay.js';
import { validateConfig } from '../config/validate.js';
import { FIB_SOURCE_API } from '../dataplane/snapshot.js';
import { VppClient } from '../vpp/client/vpp-client.js';
import { msg } from '../vpp/messages/index.js';
import { reconcile } from '../../test/support/host-reconcile.js';
import { memoryStore } from './reconcile.js';
import { NO_HOST_LINKS } from '../../test/support/no-host-links.js';

describe('an IPv6 default route through an appliance', () => {
  let target: VppTarget;
  let client: VppClient;
  let dir: string;
  let uplink: string;
  let uplinkIndex: number;
  const globals = memoryStore();

  const raw = (withDefault: boolean): Record<string, unknown> => ({
    node: {
      name: 'hv1',
      underlay: { interface: uplink, address: '2001:db8::1/64', gateway: '2001:db8::2' },
      vhostUser: { directory: dir },
      srv6: { locator: 'fc00:1::/48' },
    },
    vpcs: [
      { name: 'vpc-a', id: 10, subnets: ['10.0.0.0/24', '2001:db8:a::/64'], gateway: '10.0.0.1' },
      { name: 'vpc-b', id: 20, subnets: ['10.0.0.0/24', '2001:db8:b::/64'], gateway: '10.0.0.1' },
    ],
    ports: [
      { name: 'vm1', vpc: 'vpc-a', mac: '52:54:00:00:0f:01', ip: '10.0.0.5' },
      // vpc-b's appliance (a NAT or a firewall VM) lives here: the whole IPv6 world is behind it.
      {
        name: 'nat1',
        vpc: 'vpc-b',
        mac: '52:54:00:00:0f:02',
        ip: '10.0.0.6',
        ...(withDefault && { allowedPrefixes: ['::/0'] }),
      },
    ].map((p) => ({ ...p, attach: { type: 'vhost-user', socket: path.join(dir, `${p.name}.sock`) } })),
    // vpc-a's appliance is on hv3.
    remoteRoutes: withDefault ? [{ vpc: 'vpc-a', prefix: '::/0', sid: 'fc00:3::100:a' }] : [],
  });

  const apply = async (withDefault: boolean): Promise<string[]> => {
    const outcome = await reconcile(validateConfig(raw(withDefault)), {
      client,
      host: NO_HOST_LINKS,
      globals,
    });
    assert.deepEqual(
      outcome.result?.failed.map((x) => `${x.op.action} ${x.op.resource.key}: ${x.error.message}`),
      [],
    );
    return outcome.plan.ops.map((o) => `${o.action} ${o.key}`);
  };

  const ip6Routes = async (table: number): Promise<string[]> =>
    (
      await client.dump(msg.ip_route_v2_dump, {
        src: FIB_SOURCE_API,
        table: { table_id: table, is_ip6: true, name: '' },
      })
    )
      .map((r) => `${r.route.prefix.address.un.ip6}/${r.route.prefix.len}`)
      .filter((p) => p.endsWith('/0') || p.endsWith('/1'));

  before(async () => {
    target = await startVppTarget();
    dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-default6-'));
    client = new VppClient({
      socketPath: target.socketPath,
      clientName: 'vppnet-test',
      healthCheckIntervalMs: 0,
    });
    await client.connect();
    const u = await createUnderlay(client);
    uplinkIndex = u.swIfIndex;
    uplink = u.name;
  });
  after(async () => {
    await reconcile(validateConfig({ ...raw(false), vpcs: [], ports: [] }), {
      client,
      host: NO_HOST_LINKS,
      globals,
    }).catch(() => undefined);
    await removeUnderlay(client, { name: uplink, swIfIndex: uplinkIndex });
    await client.close();
    await target.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('steers ::/0 as ::/1 and 8000::/1 to the remote appliance, routes both halves to a local one, and plans nothing more', async () => {
    const ops = await apply(true);
    for (const key of [
      'create sr-steering:ip6:10:::/1',
      'create sr-steering:ip6:10:8000::/1',
      'create route:ip6:20:::/1',
      'create route:ip6:20:8000::/1',
    ])
      assert.ok(ops.includes(key), `${key} in\n${ops.join('\n')}`);
    assert.ok(!ops.some((o) => /:(10|20):::\/0$/.test(o)), 'nothing on ::/0 itself in the VPC tables');
    const steering = await client.dump(msg.sr_steering_pol_dump, {});
    assert.deepEqual(
      steering
        .filter((s) => s.fib_table === 10 && s.traffic_type === msg.sr_steer_t.values.SR_STEER_API_IPV6)
        .map((s) => `${s.prefix.address.un.ip6}/${s.prefix.len}`)
        .sort(),
      ['8000::/1', '::/1'],
    );
    assert.deepEqual(
      (await ip6Routes(20)).sort(),
      ['8000::/1', '::/1'],
      "vpc-b's halves through the appliance",
    );
    assert.deepEqual(await apply(true), [], 'a second pass changes nothing');
  });

  it('takes both halves away again', async () => {
    await apply(false);
    assert.deepEqual(await ip6Routes(20), []);
    const steering = await client.dump(msg.sr_steering_pol_dump, {});
    assert.equal(
      steering.filter((s) => s.fib_table === 10 && s.traffic_type === msg.sr_steer_t.values.SR_STEER_API_IPV6)
        .length,
      0,
    );
    assert.deepEqual(await apply(false), []);
  });
});
