import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { removeUnderlay } from '../../test/support/underlay.js';
import { startVppTarget, type VppTarget } from '../../test/support/vpp-target.js';
import { linuxHostLinks } from '../agent/host-links.js';
import { hostLinkOwner } from '../netns/link-owner.js';
import { memoryStore, reconcile } from '../agent/reconciler.js';
import { loadConfigFile } from '../config/load.js';
import { VppClient } from '../vpp/client/vpp-client.js';
import { msg } from '../vpp/messages/index.js';
import { main } from './vppnet.js';

async function run(argv: string[]): Promise<{ code: number; out: string }> {
  const out = new PassThrough();
  let text = '';
  out.on('data', (c: Buffer) => (text += c.toString()));
  const code = await main(argv, out);
  return { code, out: text };
}

describe('vppnet CLI', () => {
  it('plans the bundled example for a fresh VPP without contacting one', async () => {
    const { code, out } = await run(['plan']);
    assert.equal(code, 0);
    assert.match(out, /against a fresh VPP \(no VPP contacted\)/);
    // Dependencies first: the VPC table before the SID that decapsulates into it, policies before steering.
    const at = (key: string): number => out.indexOf(` ${key} `);
    assert.ok(at('ip-table:ip4:10') >= 0 && at('ip-table:ip4:10') < at('sr-localsid:fc00:1::a'));
    assert.ok(at('sr-policy:fc00:1:ff::1') < at('sr-steering:ip4:10:10.0.0.7/32'));
    assert.match(out, /\d+ operations: \d+ create, 0 update, 0 delete; 0 unchanged, 0 pending/);
  });

  it('prints the plan as JSON', async () => {
    const { out } = await run(['plan', '--json']);
    const plan = JSON.parse(out) as { ops: { action: string; key: string }[] };
    assert.ok(plan.ops.length > 20);
    assert.ok(plan.ops.every((o) => o.action === 'create'));
  });

  it('fails on an invalid config with the field named', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-cli-'));
    try {
      await writeFile(path.join(dir, 'bad.yaml'), 'node: {name: X}\n');
      await assert.rejects(run(['plan', '--config', path.join(dir, 'bad.yaml')]), /node\.name: must be/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  describe('against a VPP', () => {
    let target: VppTarget;
    let dir: string;
    let configPath: string;
    let underlayIndex = 0;
    before(async () => {
      target = await startVppTarget();
      dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-cli-'));
      const c = new VppClient({ socketPath: target.socketPath, healthCheckIntervalMs: 0 });
      await c.connect();
      const lo = await c.call(msg.create_loopback_instance, {});
      const [d] = await c.dump(msg.sw_interface_dump, { sw_if_index: lo.sw_if_index });
      underlayIndex = lo.sw_if_index;
      await c.close();
      configPath = path.join(dir, 'config.yaml');
      await writeFile(
        configPath,
        stringify({
          node: { name: 'hv1', underlay: { interface: d!.interface_name, address: '2001:db8::1/64', gateway: '2001:db8::2' }, srv6: { locator: 'fc00:1::/48' } },
          vpcs: [{ name: 'vpc-a', id: 10, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' }],
          remoteRoutes: [{ vpc: 'vpc-a', prefix: '10.0.0.7/32', sid: 'fc00:2::a' }],
        }),
      );
    });
    after(async () => {
      if (target.real) {
        // Leave a real VPP as found: nothing of vppnet's, and not the test's "NIC" either.
        const c = new VppClient({ socketPath: target.socketPath, healthCheckIntervalMs: 0 });
        await c.connect();
        const cfg = await loadConfigFile(configPath);
        await reconcile({ ...cfg, vpcs: [], ports: [], remoteRoutes: [] }, { client: c, host: linuxHostLinks(hostLinkOwner(target.socketPath)), globals: memoryStore() });
        const all = await c.dump(msg.sw_interface_dump, { sw_if_index: 0xffffffff });
        const lo = all.find((i) => i.sw_if_index === underlayIndex);
        if (lo) await removeUnderlay(c, { name: lo.interface_name, swIfIndex: underlayIndex });
        await c.close();
      }
      await target.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('shows the diff against a live VPP, changes nothing, and says when it is in sync', async () => {
      const before = await run(['plan', '--config', configPath, '--vpp', target.socketPath, '--state-dir', dir]);
      assert.match(before.out, /create {2}sr-steering:ip4:10:10\.0\.0\.7\/32/);
      const again = await run(['plan', '--config', configPath, '--vpp', target.socketPath, '--state-dir', dir]);
      assert.equal(again.out, before.out, 'planning changed nothing in VPP');

      const client = new VppClient({ socketPath: target.socketPath, healthCheckIntervalMs: 0 });
      await client.connect();
      try {
        await reconcile(await loadConfigFile(configPath), { client, host: linuxHostLinks(hostLinkOwner(target.socketPath)), globals: memoryStore() });
      } finally {
        await client.close();
      }
      const status = await run(['status', '--config', configPath, '--vpp', target.socketPath, '--json', '--state-dir', dir]);
      const s = JSON.parse(status.out) as { owned: Record<string, number>; pendingOps: number };
      assert.equal(s.owned['sr-steering'], 1);
      assert.equal(s.owned['sr-policy'], 1);
      // Without the agent's memory of the hop limit (cannot be read from VPP) it is the only op left.
      assert.equal(s.pendingOps, 1);
    });
  });
});
