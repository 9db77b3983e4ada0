/**
 * An uplink deleted and created again under the same index (dataplane/reset-interfaces.ts): VPP
 * keeps the API routes through it with their paths unresolved, and they read back unchanged, so the
 * next pass must recognise the interface by its lost addresses and delete every route through it
 * before adding them again. Runs on the simulator (the plan), and against a real VPP with
 * VPP_API_SOCKET, where the default route must resolve again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startVppTarget, type VppTarget } from '../../test/support/vpp-target.js';
import { NO_HOST_LINKS } from '../../test/support/no-host-links.js';
import { removeUnderlay } from '../../test/support/underlay.js';
import { validateConfig } from '../config/validate.js';
import { UNDERLAY_SOURCE_TABLE } from '../config/defaults.js';
import { VppClient } from '../vpp/client/vpp-client.js';
import { msg } from '../vpp/messages/index.js';
import { reconcile } from '../../test/support/host-reconcile.js';
import { memoryStore } from './reconcile.js';

describe('an uplink deleted and created again', () => {
  let target: VppTarget;
  let client: VppClient;
  /** Someone else's client: the operator who re-creates the interface. */
  let operator: VppClient;
  let uplink = { name: '', swIfIndex: -1 };
  const globals = memoryStore();

  const raw = (): Record<string, unknown> => ({
    node: {
      name: 'hv1',
      underlay: { interface: uplink.name, address: '2001:db8::1/64', gateway: '2001:db8::2' },
      srv6: { locator: 'fc00:1::/48' },
    },
    vpcs: [{ name: 'vpc-a', id: 10, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' }],
    ports: [],
    remoteRoutes: [{ vpc: 'vpc-a', prefix: '10.0.1.0/24', sid: 'fc00:2::a' }],
  });
  const config = () => validateConfig(raw());
  const pass = async (): Promise<string[]> => {
    const outcome = await reconcile(config(), { client, host: NO_HOST_LINKS, globals });
    assert.deepEqual(
      outcome.result?.failed.map((x) => `${x.op.action} ${x.op.resource.key}: ${x.error.message}`),
      [],
    );
    return outcome.plan.ops.map((o) => `${o.action} ${o.resource.key}`);
  };
  const createUplink = async (): Promise<{ name: string; swIfIndex: number }> => {
    const lo = await operator.call(msg.create_loopback_instance, {});
    const [d] = await operator.dump(msg.sw_interface_dump, { sw_if_index: lo.sw_if_index });
    return { name: d?.interface_name ?? '', swIfIndex: lo.sw_if_index };
  };

  before(async () => {
    target = await startVppTarget();
    const open = async (name: string): Promise<VppClient> => {
      const c = new VppClient({ socketPath: target.socketPath, clientName: name, healthCheckIntervalMs: 0 });
      await c.connect();
      return c;
    };
    client = await open('vppnet-test');
    operator = await open('operator');
    uplink = await createUplink();
  });

  after(async () => {
    await reconcile(validateConfig({ ...raw(), vpcs: [], remoteRoutes: [] }), {
      client,
      host: NO_HOST_LINKS,
      globals,
    }).catch(() => undefined);
    await removeUnderlay(operator, uplink);
    await client.close();
    await operator.close();
    await target.close();
  });

  it('deletes every route through it and adds them again, and then plans nothing', async () => {
    await pass();
    assert.deepEqual(await pass(), []);

    await operator.call(msg.delete_loopback, { sw_if_index: uplink.swIfIndex });
    const again = await createUplink();
    assert.deepEqual(again, uplink, 'the same name and index again');

    const ops = await pass();
    const routeOps = ops.filter((o) => o.includes(' route:'));
    const through = [
      'route:ip6:0:::/0',
      `route:ip6:${UNDERLAY_SOURCE_TABLE}:2001:db8::/64`,
      `route:ip6:${UNDERLAY_SOURCE_TABLE}:fe80::/64`,
    ];
    assert.deepEqual(
      routeOps.filter((o) => o.startsWith('delete')).sort(),
      through.map((k) => `delete ${k}`).sort(),
    );
    assert.deepEqual(
      routeOps.filter((o) => o.startsWith('create')).sort(),
      through.map((k) => `create ${k}`).sort(),
    );
    // Every delete before any create: the old path-list goes only when no route holds it.
    const lastDelete = ops.findLastIndex((o) => o.startsWith('delete route:'));
    const firstCreate = ops.findIndex((o) => o.startsWith('create route:'));
    assert.ok(lastDelete < firstCreate, ops.join('\n'));
    assert.ok(ops.includes('create address:' + uplink.name + ':2001:db8::1/64'));
    assert.deepEqual(await pass(), []);

    if (target.sim === undefined) {
      // What the pass was for, on a real VPP: the default route resolves through the new interface.
      const fib = await client.cli('show ip6 fib ::/0');
      assert.doesNotMatch(fib, /unresolved/, fib);
    }
  });
});
