/**
 * The service bridge end to end: full reconciles against a VPP (the simulator by default, a real
 * VPP 26.06 with VPP_API_SOCKET), pods in real network namespaces on veth pairs (root only). Each
 * test leaves VPP, the host and the state directory as it found them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { validateConfig } from '../config/validate.js';
import { msg } from '../vpp/messages/index.js';
import {
  type Fixture,
  rawConfig,
  setup,
  apply,
  planOps,
  teardown,
  OWN_VPP_PER_SUITE,
} from '../../test/support/service-bridge-fixture.js';

void describe('service bridge reconcile', { skip: OWN_VPP_PER_SUITE }, () => {
  let f: Fixture;
  before(async () => {
    f = await setup();
  });
  after(async () => {
    await teardown(f);
  });

  void it('converges from empty with the design objects, and a second pass plans nothing', async () => {
    const first = await apply(f);
    assert.ok((first.result?.applied ?? 0) > 30);
    assert.deepEqual(await planOps(f), []);

    const bds = await f.client.dump(msg.bridge_domain_dump, { bd_id: 100, sw_if_index: 0xffffffff });
    assert.equal(bds[0]?.bd_tag, 'vppnet:services');
    const ifs = await f.client.dump(msg.sw_interface_dump, {
      sw_if_index: 0xffffffff,
      name_filter_valid: false,
    });
    const bvi = ifs.find((i) => i.tag === 'vppnet:services:bvi');
    assert.equal(bds[0]?.bvi_sw_if_index, bvi?.sw_if_index);
    const statics = await f.client.dump(msg.nat44_ei_static_mapping_dump, {});
    assert.deepEqual(
      statics.map((m) => [m.tag, m.vrf_id, m.local_ip_address, m.external_ip_address, m.flags]).sort(),
      [
        ['vppnet:vm:vm1', 10, '10.0.0.5', '169.252.252.1', 8],
        ['vppnet:vm:vm2', 20, '10.0.0.5', '169.252.252.2', 8],
      ],
    );
    const identities = await f.client.dump(msg.nat44_ei_identity_mapping_dump, {});
    assert.deepEqual(
      identities.map((m) => m.vrf_id).sort((a, b) => a - b),
      [10, 20, 4000],
    );
    const proxies = await f.client.dump(msg.dhcp_proxy_dump, { is_ip6: false });
    assert.deepEqual(proxies.map((p) => [p.rx_vrf_id, p.vss_vpn_ascii_id]).sort(), [
      [10, 'vpc-a'],
      [20, 'vpc-b'],
    ]);
    assert.deepEqual(
      f.addresses.serviceMap().map((e) => [e.serviceAddress, e.port, e.vpcId]),
      [
        ['169.252.252.1', 'vm1', 10],
        ['169.252.252.2', 'vm2', 20],
      ],
    );
  });

  void it('moves a VM to a new service address only when it becomes another VM', async () => {
    await apply(f);
    const raw = rawConfig(f);
    (raw.ports as { ip: string }[])[0]!.ip = '10.0.0.9';
    const ops = await planOps(f, validateConfig(raw));
    assert.ok(ops.includes('create nat-ei-static:10:10.0.0.9'), ops.join('\n'));
    assert.ok(ops.includes('delete nat-ei-static:10:10.0.0.5'), ops.join('\n'));
    await apply(f, validateConfig(raw));
    const statics = await f.client.dump(msg.nat44_ei_static_mapping_dump, {});
    // .1 is held back, so vm1 (now another VM) gets .3.
    assert.ok(statics.some((m) => m.tag === 'vppnet:vm:vm1' && m.external_ip_address === '169.252.252.3'));
    await apply(f);
  });
});
