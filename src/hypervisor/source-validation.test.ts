/**
 * Source validation and the SRv6 ingress filter as the reconciler leaves them in the simulator,
 * judged packet by packet with the simulator's models of VPP's checks (urpfVerdict: urpf_dp.h over
 * the simulated FIB): CI cannot send packets through a
 * VPP. The same attacks with real packets against a real VPP are in
 * test/integration/tenant-edge-traffic.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startVppTarget, SIM_ONLY, type VppTarget } from '../../test/support/vpp-target.js';
import { validateConfig } from '../config/validate.js';
import { readDropCounts } from '../dataplane/drop-counters.js';
import { eui64Address } from '../net/eui64.js';
import type { VppSimulator } from '../vpp/sim/index.js';
import { VppClient } from '../vpp/client/vpp-client.js';
import { msg } from '../vpp/messages/index.js';
import { reconcile } from '../../test/support/host-reconcile.js';
import { memoryStore } from './reconcile.js';
import { NO_HOST_LINKS } from '../../test/support/no-host-links.js';

const MAC = (n: number): string => `52:54:00:00:0a:${n.toString(16).padStart(2, '0')}`;
const SUBNET6 = { address: '2001:db8:a::', len: 64 };
const ip6Of = (n: number): string => eui64Address(SUBNET6, MAC(n));
const linkLocalOf = (n: number): string => eui64Address({ address: 'fe80::', len: 64 }, MAC(n));

interface Fixture {
  target: VppTarget;
  sim: VppSimulator;
  client: VppClient;
  dir: string;
  uplink: number;
}

function rawConfig(dir: string, uplink: string, edit?: (ports: Record<string, unknown>[]) => void): unknown {
  const port = (
    n: number,
    vpc: string,
    ip: string,
    extra: Record<string, unknown> = {},
  ): Record<string, unknown> => ({
    name: `vm${n}`,
    vpc,
    mac: MAC(n),
    ip,
    attach: { type: 'vhost-user', socket: path.join(dir, `vm${n}.sock`) },
    ...extra,
  });
  const ports = [
    port(1, 'vpc-a', '10.0.0.5'),
    port(2, 'vpc-a', '10.0.0.6'),
    // An appliance with networks behind it.
    port(3, 'vpc-a', '10.0.0.7', { allowedPrefixes: ['192.168.0.0/16', '2001:db8:c::/48'] }),
    // A port whose tenant turned the check off.
    port(4, 'vpc-a', '10.0.0.8', { sourceCheck: false }),
    // The same address as vm1 in another VPC.
    port(5, 'vpc-b', '10.0.0.5'),
  ];
  edit?.(ports);
  return {
    node: {
      name: 'hv1',
      underlay: { interface: uplink, address: '2001:db8::1/64', gateway: '2001:db8::2' },
      vhostUser: { directory: dir },
      srv6: { locator: 'fc00:1::/48' },
    },
    vpcs: [
      { name: 'vpc-a', id: 10, subnets: ['10.0.0.0/24', '2001:db8:a::/64'], gateway: '10.0.0.1' },
      { name: 'vpc-b', id: 20, subnets: ['10.0.0.0/24', '2001:db8:a::/64'], gateway: '10.0.0.1' },
    ],
    ports,
    remoteRoutes: [
      { vpc: 'vpc-a', prefix: '10.0.1.0/24', sid: 'fc00:2::a' },
      { vpc: 'vpc-a', prefix: '2001:db8:a::99/128', sid: 'fc00:2::100:a' },
    ],
    services: { dnsAddress: '169.254.169.53', dhcpServer: '169.254.169.103' },
  };
}

async function apply(f: Fixture, raw: unknown): Promise<void> {
  const outcome = await reconcile(validateConfig(raw), {
    client: f.client,
    host: NO_HOST_LINKS,
    globals: memoryStore(),
  });
  assert.deepEqual(
    outcome.result?.failed.map((x) => `${x.op.action} ${x.op.resource.key}: ${x.error.message}`),
    [],
  );
}

async function portIndex(f: Fixture, n: number): Promise<number> {
  const all = await f.client.dump(msg.sw_interface_dump, {
    sw_if_index: 0xffffffff,
    name_filter_valid: false,
  });
  const found = all.find((i) => i.tag === `vppnet:vm:vm${n}`);
  assert.ok(found, `port vm${n} exists`);
  return found.sw_if_index;
}

describe('source validation and the SRv6 ingress filter, judged by the simulator', { skip: SIM_ONLY }, () => {
  let f: Fixture;
  before(async () => {
    const target = await startVppTarget();
    const dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-srcval-'));
    const client = new VppClient({
      socketPath: target.socketPath,
      clientName: 'vppnet-test',
      healthCheckIntervalMs: 0,
    });
    await client.connect();
    // The uplink: an interface someone else made.
    const lo = await client.call(msg.create_loopback_instance, {});
    const [nic] = await client.dump(msg.sw_interface_dump, {
      sw_if_index: lo.sw_if_index,
      name_filter_valid: false,
    });
    f = { target, sim: target.sim as VppSimulator, client, dir, uplink: lo.sw_if_index };
    await apply(f, rawConfig(dir, nic?.interface_name as string));
  });
  after(async () => {
    await f.client.close();
    await f.target.close();
    await rm(f.dir, { recursive: true, force: true });
  });

  const verdict4 = async (n: number, src: string, dst = '10.0.0.6'): Promise<string> =>
    f.sim.urpfVerdict({ swIfIndex: await portIndex(f, n), af: 4, src, dst });
  const verdict6 = async (n: number, src: string, dst = ip6Of(2)): Promise<string> =>
    f.sim.urpfVerdict({ swIfIndex: await portIndex(f, n), af: 6, src, dst });

  it('passes what a VM sends as itself, IPv4', async () => {
    assert.equal(await verdict4(1, '10.0.0.5'), 'pass');
    assert.equal(await verdict4(1, '10.0.0.5', '169.254.169.254'), 'pass', 'metadata');
    assert.equal(await verdict4(1, '10.0.0.5', '10.0.1.9'), 'pass', 'a remote VM');
    assert.equal(await verdict4(5, '10.0.0.5'), 'pass', 'the same address in another VPC, on its own port');
  });

  it('passes DHCP from 0.0.0.0 to the broadcast address', async () => {
    assert.equal(await verdict4(1, '0.0.0.0', '255.255.255.255'), 'pass');
  });

  it('drops an IPv4 source that is not the VM’s', async () => {
    for (const [src, what] of [
      ['10.0.0.6', 'another local VM'],
      ['10.0.0.8', 'a VM whose own check is off'],
      ['10.0.0.7', 'an appliance'],
      ['10.0.0.99', 'an unassigned address of the subnet'],
      ['10.0.0.1', 'the gateway'],
      ['10.0.1.9', 'a remote VM'],
      ['169.254.169.254', 'the metadata server'],
      ['169.254.169.53', 'the DNS server'],
      ['8.8.8.8', 'a foreign address'],
      ['0.0.0.0', 'the unspecified address to a unicast destination'],
    ] as const)
      assert.equal(await verdict4(1, src), 'drop', what);
    // vm5 has vm1's address, but in vpc-b: vm1's address in vpc-a is not its own.
    assert.equal(await verdict4(5, '10.0.0.6'), 'drop', "a VM of vpc-a's address, in vpc-b");
  });

  it('passes what a VM sends as itself, IPv6: its address, its link-local, :: to multicast', async () => {
    assert.equal(await verdict6(1, ip6Of(1)), 'pass');
    assert.equal(await verdict6(1, linkLocalOf(1), 'fe80::1'), 'pass', 'a neighbour probe to the gateway');
    assert.equal(await verdict6(1, '::', 'ff02::1:ff00:5'), 'pass', 'duplicate address detection');
    assert.equal(await verdict6(1, linkLocalOf(1), 'ff02::2'), 'pass', 'a router solicitation');
  });

  it('drops an IPv6 source that is not the VM’s', async () => {
    for (const [src, what] of [
      [ip6Of(2), 'another local VM'],
      [linkLocalOf(2), "another VM's link-local"],
      ['fe80::1', "the gateway's link-local"],
      ['2001:db8:a::99', 'a remote VM'],
      ['2001:db8:a::1234', 'an unassigned address of the subnet'],
      ['2001:db8:c::1', "a network behind another VM's appliance"],
      ['2001:4860::8888', 'a foreign address'],
    ] as const)
      assert.equal(await verdict6(1, src), 'drop', what);
  });

  it("passes an appliance's allowed prefixes, and nothing else of others", async () => {
    assert.equal(await verdict4(3, '192.168.4.4'), 'pass');
    assert.equal(await verdict6(3, '2001:db8:c::1'), 'pass');
    assert.equal(await verdict4(3, '10.0.0.5'), 'drop');
    assert.equal(await verdict4(1, '192.168.4.4'), 'drop', 'only the appliance may send from its networks');
  });

  it('checks nothing on a port with sourceCheck: false', async () => {
    assert.equal(await verdict4(4, '10.0.0.6'), 'no-check');
    assert.equal(await verdict6(4, ip6Of(2)), 'no-check');
  });

  it('lets only the fleet reach the node from the underlay: SIDs, BSIDs and all', () => {
    const uplink = (src: string, dst: string): string =>
      f.sim.urpfVerdict({ swIfIndex: f.uplink, af: 6, src, dst });
    assert.equal(
      uplink('2001:db8::7', 'fc00:1::a'),
      'pass',
      "a node in the underlay prefix, to vpc-a's End.DT4 SID",
    );
    assert.equal(uplink('fe80::2', 'fc00:1::a'), 'pass', 'the gateway, from its link-local');
    assert.equal(uplink('2001:db9::1', 'fc00:1::a'), 'drop', 'an outsider to a SID');
    assert.equal(uplink('2001:db9::1', 'fc00:1::100:14'), 'drop', 'an outsider to an End.DT6 SID');
    assert.equal(uplink('2001:db9::1', 'fc00:1:ff::1'), 'drop', 'an outsider to a BSID');
    assert.equal(uplink('2001:db9::1', 'ff02::1:ff00:1'), 'pass', 'neighbour discovery to multicast');
  });

  it("counts each drop where the agent's metrics read them (show errors)", async () => {
    const before = await readDropCounts(f.client);
    await verdict4(1, '10.0.0.6');
    await verdict4(1, '169.254.169.254');
    await verdict6(1, ip6Of(2));
    f.sim.urpfVerdict({ swIfIndex: f.uplink, af: 6, src: '2001:db9::1', dst: 'fc00:1::a' });
    await verdict4(1, '10.0.0.5');
    const after = await readDropCounts(f.client);
    assert.deepEqual(
      {
        spoofedSource4: after.spoofedSource4 - before.spoofedSource4,
        spoofedSource6: after.spoofedSource6 - before.spoofedSource6,
        srv6Ingress: after.srv6Ingress - before.srv6Ingress,
      },
      { spoofedSource4: 2, spoofedSource6: 1, srv6Ingress: 1 },
    );
  });

  it('turns a port’s check off with sourceCheck: false, and leaves nothing of a removed port', async () => {
    const vm2 = await portIndex(f, 2);
    await apply(
      f,
      rawConfig(
        f.dir,
        (await f.client.dump(msg.sw_interface_dump, { sw_if_index: f.uplink, name_filter_valid: false }))[0]
          ?.interface_name as string,
        (ports) => {
          (ports[1] as Record<string, unknown>).sourceCheck = false;
          ports.splice(0, 1);
        },
      ),
    );
    assert.equal(f.sim.urpfVerdict({ swIfIndex: vm2, af: 4, src: '10.0.0.9', dst: '10.0.0.7' }), 'no-check');
    const listed = await f.client.dump(msg.urpf_interface_dump, { sw_if_index: 0xffffffff });
    assert.ok(!listed.some((u) => u.sw_if_index === vm2), 'nothing listed for vm2');
    // vm3 and vm5, each IPv4 and IPv6, and the uplink; vm4's check is off; vm1 is gone.
    assert.equal(listed.length, 2 * 2 + 1);
  });
});
