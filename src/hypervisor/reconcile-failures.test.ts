/**
 * The reconcile pass when VPP fails it (simulator fault injection, failRequest): a create refused
 * with a retval, a reply lost with the connection, a VPP restart between passes. Each time the
 * error names the message and VPP's retval, what depends on the failure waits, the rest is done,
 * and the next pass converges to exactly what a pass without the fault leaves: nothing twice,
 * nothing leaked.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { reconcile } from '../../test/support/host-reconcile.js';
import { NO_HOST_LINKS } from '../../test/support/no-host-links.js';
import { sh } from '../../test/support/packets.js';
import { createUnderlay, removeUnderlay } from '../../test/support/underlay.js';
import { connectedClient, SIM_ONLY, startVppTarget, type VppTarget } from '../../test/support/vpp-target.js';
import type { AgentConfig } from '../config/model.js';
import { validateConfig } from '../config/validate.js';
import { vppAddress, vppPrefix } from '../dataplane/ip-values.js';
import { VppRetvalError } from '../vpp/client/retval-error.js';
import type { VppClient } from '../vpp/client/vpp-client.js';
import { msg } from '../vpp/messages/index.js';
import type { RequestFault, VppSimulator } from '../vpp/sim/index.js';
import { memoryAddressBookStore } from '../services/address-store.js';
import type { PodAttachmentSource } from '../services/runtime.js';
import { ServiceAddresses } from '../services/service-addresses.js';
import { memoryStore, type ReconcileOutcome, type SrGlobalsStore } from './reconcile.js';

interface Fixture {
  readonly target: VppTarget;
  readonly sim: VppSimulator;
  readonly client: VppClient;
  readonly other: VppClient;
  readonly underlay: string;
  readonly globals: SrGlobalsStore;
}

let dir = '';

function config(underlay: string): AgentConfig {
  return validateConfig(rawConfig(underlay));
}

function rawConfig(underlay: string): { node: object } & Record<string, unknown> {
  const vpcs = [1, 2].map((i) => ({
    name: `vpc-${i}`,
    id: 99 + i,
    subnets: ['10.0.0.0/24'],
    gateway: '10.0.0.1',
  }));
  return {
    node: {
      name: 'hv1',
      underlay: { interface: underlay, address: '2001:db8::1/64', gateway: '2001:db8::2' },
      vhostUser: { directory: dir },
      srv6: { locator: 'fc00:1::/48' },
    },
    vpcs,
    ports: vpcs.map((v, i) => ({
      name: `vm-${i + 1}`,
      vpc: v.name,
      mac: `52:54:00:00:00:0${i + 1}`,
      ip: '10.0.0.5',
      attach: { type: 'vhost-user', socket: path.join(dir, `vm-${i + 1}.sock`) },
    })),
    remoteRoutes: vpcs.flatMap((v, i) =>
      [0, 1].map((j) => ({
        vpc: v.name,
        prefix: `10.1.${j}.0/24`,
        sid: `fc00:2::${(100 + i).toString(16)}`,
      })),
    ),
    services: { dhcpServer: '169.254.169.103', dnsAddress: '169.254.169.53' },
  };
}

async function setup(): Promise<Fixture> {
  const target = await startVppTarget();
  const other = await connectedClient(target.socketPath, 'someone-else');
  const underlay = await createUnderlay(other);
  const client = await connectedClient(target.socketPath, 'vppnet-test');
  return { target, sim: target.sim!, client, other, underlay: underlay.name, globals: memoryStore() };
}

async function teardown(f: Fixture): Promise<void> {
  await f.client.close();
  await f.other.close();
  await f.target.close();
}

function pass(f: Fixture, planOnly = false): Promise<ReconcileOutcome> {
  return reconcile(config(f.underlay), {
    client: f.client,
    host: NO_HOST_LINKS,
    globals: f.globals,
    planOnly,
  });
}

/** A pass that must apply everything; then one that must plan nothing. */
async function converge(f: Fixture): Promise<void> {
  const outcome = await pass(f);
  assert.deepEqual(
    outcome.result?.failed.map((x) => `${x.op.action} ${x.op.key}: ${x.error.message}`),
    [],
    'no operation failed',
  );
  assert.deepEqual(
    outcome.result?.skipped.map((x) => `${x.op.key}: ${x.reason}`),
    [],
    'no operation skipped',
  );
  assert.deepEqual(
    (await pass(f, true)).plan.ops.map((o) => `${o.action} ${o.key}`),
    [],
    'the next pass plans nothing',
  );
}

/**
 * What VPP holds, without the indices VPP picks: interfaces by tag (by name when untagged, so an
 * untagged leftover shows), and everything that names an interface by that label. Two VPPs with
 * the same objects give the same inventory.
 */
function inventory(sim: VppSimulator): unknown {
  const s = sim.state;
  const label = new Map(s.interfaces.map((i) => [i.swIfIndex, i.tag || i.name]));
  const name = (i: number): string => label.get(i) ?? `#${i}`;
  const sorted = <T>(xs: readonly T[]): string[] => xs.map((x) => JSON.stringify(x)).sort();
  return {
    interfaces: sorted(
      s.interfaces.map((i) => ({
        label: name(i.swIfIndex),
        kind: i.kind,
        up: i.adminUp,
        tables: [i.ip4Table, i.ip6Table],
        addresses: [...i.addresses].sort(),
        unnumberedTo: i.unnumberedTo === undefined ? undefined : name(i.unnumberedTo),
        bridge: i.bridge,
        proxyArp: i.proxyArp,
      })),
    ),
    tables: sorted(s.tables.map((t) => ({ af: t.af, id: t.tableId, name: t.name, routes: t.routes }))),
    routes: sorted(
      s.tables.flatMap((t) =>
        (s.routes(t.tableId, t.af) ?? []).map((r) => ({
          table: `${t.af}:${t.tableId}`,
          prefix: r.prefix,
          sources: r.sources,
          paths: r.paths.map((p) => ({
            ...p,
            swIfIndex: p.swIfIndex === 0xffffffff ? '-' : name(p.swIfIndex),
          })),
        })),
      ),
    ),
    localsids: sorted(s.sr.localsids),
    policies: sorted(s.sr.policies),
    steering: sorted(s.sr.steering),
    bridgeDomains: sorted(
      s.bridgeDomains.map((b) => ({
        ...b,
        bvi: b.bvi === undefined ? '-' : name(b.bvi),
        members: b.members.map(name).sort(),
      })),
    ),
    acls: sorted(s.acls.map((a) => ({ tag: a.tag, rules: a.rules }))),
    aclInterfaces: sorted(
      s.aclInterfaces.map((a) => ({ iface: name(a.swIfIndex), n: [a.input.length, a.output.length] })),
    ),
    nat44Ei: sorted(s.nat44Ei.staticMappings),
    identity: sorted(s.nat44Ei.identityMappings.map((m) => ({ ...m, vrfIds: [...m.vrfIds].sort() }))),
  };
}

/** Resolves on the client's next reconnect. */
function reconnected(client: VppClient): Promise<void> {
  return new Promise((resolve) => {
    const onReady = (info: { reconnect: boolean }): void => {
      if (!info.reconnect) return;
      client.off('ready', onReady);
      resolve();
    };
    client.on('ready', onReady);
  });
}

/** Every skipped op waits, directly or through other skipped ops, for `failedKey`. */
function assertOnlyDependantsSkipped(outcome: ReconcileOutcome, failedKey: string): void {
  const skipped = new Map<string, string>();
  for (const s of outcome.result?.skipped ?? []) skipped.set(s.op.key, s.reason);
  for (const [key, reason] of skipped) {
    let at = key;
    let why = reason;
    const seen = new Set<string>();
    for (;;) {
      const m = /^waiting for (.+), which (failed|was skipped)$/.exec(why);
      assert.ok(m, `${key} skipped for another reason: ${why}`);
      at = m[1] as string;
      if (m[2] === 'failed') break;
      assert.ok(!seen.has(at), `a cycle of skips through ${at}`);
      seen.add(at);
      why = skipped.get(at) ?? assert.fail(`${key} waits for ${at}, which was not skipped`);
    }
    assert.equal(at, failedKey, `${key} skipped for ${at}`);
  }
}

describe('a reconcile pass that VPP fails', { skip: SIM_ONLY }, () => {
  /** What a pass without faults leaves in VPP. */
  let expected: unknown;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-recfail-'));
    const f = await setup();
    try {
      await converge(f);
      expected = inventory(f.sim);
    } finally {
      await teardown(f);
    }
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  // One create of each family, refused: an interface (a VM port's, a loopback), a table, a
  // route, an SR policy, a localsid, an ACL, a bridge domain, a NAT mapping.
  const refusals: { message: string; skip?: number; retval: number }[] = [
    { message: 'create_vhost_user_if_v2', retval: -7 },
    { message: 'create_loopback_instance', skip: 1, retval: -1 },
    { message: 'ip_table_add_del', skip: 1, retval: -3 },
    { message: 'ip_route_add_del', skip: 2, retval: -6 },
    { message: 'sr_policy_add', skip: 1, retval: -7 },
    { message: 'sr_localsid_add_del', retval: -12 },
    { message: 'acl_add_replace', retval: -1 },
    { message: 'bridge_domain_add_del_v2', retval: -7 },
    { message: 'nat44_ei_add_del_static_mapping', skip: 1, retval: -7 },
  ];
  for (const r of refusals) {
    it(`${r.message} refused (${r.retval}): named with its retval, its dependants wait, the next pass converges`, async () => {
      const f = await setup();
      try {
        f.sim.failRequest(r.message, { retval: r.retval }, { skip: r.skip ?? 0 });
        const outcome = await pass(f);
        const failed = outcome.result?.failed ?? [];
        assert.equal(failed.length, 1, failed.map((x) => `${x.op.key}: ${x.error.message}`).join('\n'));
        const [{ op, error }] = failed as [(typeof failed)[number]];
        assert.match(error.message, new RegExp(`^${r.message}: VPP returned ${r.retval} \\(`));
        assert.ok(error instanceof VppRetvalError && error.retval === r.retval);
        assertOnlyDependantsSkipped(outcome, op.key);
        const { applied = 0, skipped = [] } = outcome.result ?? {};
        assert.ok(applied > 0, 'the independent ops ran');
        assert.equal(applied + failed.length + skipped.length, outcome.plan.ops.length);
        await converge(f);
        assert.deepEqual(inventory(f.sim), expected, 'nothing twice, nothing left over');
      } finally {
        await teardown(f);
      }
    });
  }

  // A create carried out whose reply the connection took with it: the next pass reads it back
  // and adopts it (by its tag, its key), or removes it, and creates nothing twice.
  const lost = [
    'create_vhost_user_if_v2',
    'create_loopback_instance',
    'ip_table_add_del',
    'ip_route_add_del',
    'sr_policy_add',
    'sr_localsid_add_del',
    'sr_steering_add_del',
    'acl_add_replace',
    'bridge_domain_add_del_v2',
    'nat44_ei_add_del_static_mapping',
  ];
  for (const message of lost) {
    it(`${message} done but its reply lost with the connection: the next pass converges without duplicates or leftovers`, async () => {
      const f = await setup();
      try {
        const back = reconnected(f.client);
        f.sim.failRequest(message, 'lose-reply' satisfies RequestFault);
        const interrupted = await pass(f).catch((err: unknown) => err as Error);
        if (!(interrupted instanceof Error)) assert.ok((interrupted.result?.failed.length ?? 0) > 0);
        await back;
        await converge(f);
        assert.deepEqual(inventory(f.sim), expected, 'nothing twice, nothing left over');
      } finally {
        await teardown(f);
      }
    });
  }

  it("a VPP restart between passes: the next pass uses no index from before, and the operator's interfaces on them are left alone", async () => {
    const f = await setup();
    try {
      await converge(f);
      const before = new Map(f.sim.state.interfaces.map((i) => [i.swIfIndex, i.tag || i.name]));
      const vppnetIndices = [...before].filter(([, label]) => label.startsWith('vppnet:')).map(([i]) => i);
      const back = Promise.all([reconnected(f.client), reconnected(f.other)]);
      await f.sim.restart({ downtimeMs: 0 });
      await back;
      // The NIC comes back first, then the operator's own loopbacks take the indices vppnet's had.
      assert.equal((await createUnderlay(f.other)).name, f.underlay);
      const operators: number[] = [];
      for (let i = 0; i < vppnetIndices.length; i++) {
        const lo = await f.other.call(msg.create_loopback_instance, {});
        await f.other.call(msg.sw_interface_tag_add_del, {
          is_add: true,
          sw_if_index: lo.sw_if_index,
          tag: `operator:${i}`,
        });
        operators.push(lo.sw_if_index);
      }
      assert.ok(
        vppnetIndices.every((i) => operators.includes(i)),
        "every index vppnet's interfaces had is the operator's now",
      );
      const theirs = (): unknown =>
        f.sim.state.interfaces
          .filter((i) => i.tag.startsWith('operator:'))
          .map((i) => [
            i.swIfIndex,
            i.tag,
            i.adminUp,
            i.ip4Table,
            i.ip6Table,
            i.addresses,
            i.proxyArp,
            i.bridge,
          ]);
      const untouched = theirs();
      await converge(f);
      assert.deepEqual(theirs(), untouched, "the operator's interfaces are as they were");
      const s = f.sim.state;
      assert.deepEqual(
        s.aclInterfaces.filter((a) => operators.includes(a.swIfIndex)),
        [],
        'no ACL on them',
      );
    } finally {
      await teardown(f);
    }
  });
});

/** On a real VPP, leaves it as found: an empty desired state, then someone else's "NIC". */
async function cleanUp(f: Fixture): Promise<void> {
  if (!f.target.real) return;
  await reconcile(validateConfig({ node: rawConfig(f.underlay).node }), {
    client: f.client,
    host: NO_HOST_LINKS,
    globals: f.globals,
  });
  const nic = (await f.other.dump(msg.sw_interface_dump, { sw_if_index: 0xffffffff })).find(
    (i) => i.interface_name === f.underlay,
  );
  if (nic) await removeUnderlay(f.other, { name: f.underlay, swIfIndex: nic.sw_if_index });
}

// The agent killed (or its connection lost) between a create and its tag leaves what these tests
// make by hand. They run on a real VPP too: VPP's own dump says what is untagged.
describe("an interface of vppnet's whose tag never came", () => {
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-recfail-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("a loopback is deleted and made again, tagged; an untagged loopback of the operator's is left alone", async () => {
    const f = await setup();
    try {
      const planned = await pass(f, true);
      const wanted = planned.plan.ops
        .map((o) => o.resource.value as { type?: string; mac?: string })
        .filter((v) => v.type === 'loopback' && typeof v.mac === 'string');
      assert.ok(wanted.length > 0, 'the pass wants loopbacks');
      const leftoverMac = wanted[0]?.mac as string;
      const loopback = async (mac: string): Promise<number> =>
        (await f.other.call(msg.create_loopback_instance, { mac_address: mac })).sw_if_index;
      await loopback(leftoverMac);
      const underlayIndex = (await f.other.dump(msg.sw_interface_dump, { sw_if_index: 0xffffffff })).find(
        (i) => i.interface_name === f.underlay,
      )?.sw_if_index;
      const operators = await loopback('02:00:5e:10:00:01');
      await converge(f);
      const all = await f.other.dump(msg.sw_interface_dump, {
        sw_if_index: 0xffffffff,
        name_filter_valid: false,
      });
      const withMac = all.filter((i) => i.l2_address === leftoverMac);
      assert.equal(withMac.length, 1, `one interface with ${leftoverMac}`);
      assert.match(withMac[0]?.tag ?? '', /^vppnet:/, "it is vppnet's, tagged");
      // (VPP may give the new one the leftover's index: the MAC and the tag tell them apart.)
      assert.deepEqual(
        all
          .filter((i) => i.tag === '' && i.interface_dev_type === 'Loopback')
          .map((i) => i.sw_if_index)
          .sort(),
        [underlayIndex, operators].sort(),
        "the untagged loopbacks left are the NIC's and the operator's",
      );
      await f.other.call(msg.delete_loopback, { sw_if_index: operators });
    } finally {
      await cleanUp(f);
      await teardown(f);
    }
  });

  it("a pod's af_packet port is left to an attach at work on its pod, and deleted once no attachment knows the pod", async () => {
    const f = await setup();
    // A pod's veth host end, by its name's shape (services/pod-veth.ts): a real one, which VPP's
    // af_packet (and the simulator, as VPP does) binds to.
    const hostName = 'vpn0123456789ab';
    try {
      sh('ip', 'link', 'add', hostName, 'type', 'veth', 'peer', 'name', 'vppnet-recfail');
      let inProgress = [hostName];
      const attachments: PodAttachmentSource = {
        forgetVanished: () => Promise.resolve([]),
        desiredPods: () => [],
        podsInProgress: () => inProgress,
      };
      const services = { addresses: new ServiceAddresses(memoryAddressBookStore()), attachments };
      const withPods = (): Promise<ReconcileOutcome> =>
        reconcile(config(f.underlay), {
          client: f.client,
          host: NO_HOST_LINKS,
          globals: f.globals,
          services,
        });
      await f.other.call(msg.af_packet_create_v3, {
        mode: 1,
        hw_addr: '02:fe:00:00:00:99',
        use_random_hw_addr: false,
        host_if_name: hostName,
        num_rx_queues: 1,
        num_tx_queues: 1,
      });
      const podPorts = async (): Promise<string[]> =>
        (await f.other.dump(msg.af_packet_dump, {})).map((a) => a.host_if_name).filter((n) => n === hostName);
      await withPods();
      assert.deepEqual(await podPorts(), [hostName], "an attach at work keeps its pod's port");
      inProgress = [];
      const outcome = await withPods();
      assert.deepEqual(
        outcome.result?.failed.map((x) => x.error.message),
        [],
      );
      assert.deepEqual(await podPorts(), [], 'a port of no known pod is deleted');
    } finally {
      await f.other.call(msg.af_packet_delete, { host_if_name: hostName }).catch(() => undefined);
      spawnSync('ip', ['link', 'del', hostName]);
      await cleanUp(f);
      await teardown(f);
    }
  });
});

// Before the gateway held its address as a /32, a VPC's gateway loopback held its subnet (an
// attached cover that let a VM's ARP claim any free address of it) and the VMs' /32s had a next
// hop. A dump shows those routes as it shows the attached ones: the gateway's prefix tells.
describe('a VPP programmed with the gateway holding its subnet', () => {
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-recfail-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("moves the gateway to its /32 and re-adds the VMs' /32s attached, then plans nothing", async () => {
    const f = await setup();
    try {
      await converge(f);
      const all = await f.other.dump(msg.sw_interface_dump, { sw_if_index: 0xffffffff });
      const gw = all.find((i) => i.tag === 'vppnet:gw:vpc-1')?.sw_if_index;
      const port = all.find((i) => i.tag === 'vppnet:vm:vm-1')?.sw_if_index;
      assert.ok(
        gw !== undefined && port !== undefined,
        `the gateway and vm-1's port: ${JSON.stringify(all.map((i) => i.tag))}`,
      );
      // What the earlier layout left: 10.0.0.1/24 on the gateway, vm-1's /32 through a next hop.
      const address = (prefix: string, isAdd: boolean): Promise<unknown> =>
        f.other.call(msg.sw_interface_add_del_address, {
          sw_if_index: gw,
          is_add: isAdd,
          del_all: false,
          prefix: vppPrefix(prefix),
        });
      await address('10.0.0.1/32', false);
      await address('10.0.0.1/24', true);
      const route = (nh: string): Promise<unknown> =>
        f.other.call(msg.ip_route_add_del, {
          is_add: true,
          is_multipath: false,
          route: {
            table_id: 100,
            prefix: vppPrefix('10.0.0.5/32'),
            paths: [{ sw_if_index: port, table_id: 0, proto: 0, nh: { address: vppAddress(nh).un } }],
          },
        });
      await route('10.0.0.5');
      assert.deepEqual((await pass(f, true)).plan.ops.map((o) => `${o.action} ${o.key}`).sort(), [
        `create address:${gatewayName(all, gw)}:10.0.0.1/32`,
        `delete address:${gatewayName(all, gw)}:10.0.0.1/24`,
        'update route:ip4:100:10.0.0.5/32',
      ]);
      await converge(f);
    } finally {
      await cleanUp(f);
      await teardown(f);
    }
  });
});

function gatewayName(all: readonly { sw_if_index: number; tag: string }[], gw: number): string {
  return all.find((i) => i.sw_if_index === gw)?.tag ?? '';
}
