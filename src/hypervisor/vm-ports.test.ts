/**
 * VM ports as a real hypervisor needs them: vhost-user sockets in a directory nobody made yet,
 * owned so that a QEMU that does not run as root can connect (and again after VPP re-creates
 * them), and every port at its VPC's MTU. Against the simulator, whose vhost-user ports bind real
 * Unix sockets as VPP does, or a real VPP when VPP_API_SOCKET is set (it must see this machine's
 * /tmp).
 */
import assert from 'node:assert/strict';
import { lstat, mkdtemp, readFile, rm, symlink, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { removeUnderlay } from '../../test/support/underlay.js';
import { SIM_ONLY, startVppTarget, type VppTarget } from '../../test/support/vpp-target.js';
import type { AgentConfig } from '../config/model.js';
import { validateConfig } from '../config/validate.js';
import { tags } from '../dataplane/keys.js';
import { VppClient } from '../vpp/client/vpp-client.js';
import { msg } from '../vpp/messages/index.js';
import { portScope } from '../agent/port-scope.js';
import { reconcile } from '../../test/support/host-reconcile.js';
import { memoryStore, type ReconcileOutcome } from './reconcile.js';
import { NO_HOST_LINKS } from '../../test/support/no-host-links.js';

const ROOT = process.getuid?.() === 0;
/** nobody/nogroup on Debian: ids no test machine gives its own files. */
const QEMU_UID = 65534;
const QEMU_GID = 65534;

describe('VM ports: vhost-user sockets and MTU', () => {
  let target: VppTarget;
  let client: VppClient;
  let other: VppClient;
  let underlay: string;
  let dir: string;
  const globals = memoryStore();

  before(async () => {
    target = await startVppTarget();
    dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-vmports-'));
    other = new VppClient({
      socketPath: target.socketPath,
      clientName: 'someone-else',
      healthCheckIntervalMs: 0,
    });
    await other.connect();
    const lo = await other.call(msg.create_loopback_instance, {});
    const [d] = await other.dump(msg.sw_interface_dump, {
      sw_if_index: lo.sw_if_index,
      name_filter_valid: false,
    });
    underlay = d!.interface_name;
    client = new VppClient({
      socketPath: target.socketPath,
      clientName: 'vppnet-test',
      healthCheckIntervalMs: 0,
      retryStrategy: () => 20,
    });
    await client.connect();
  });
  after(async () => {
    await reconcile(config({ ports: [] }), { client, host: NO_HOST_LINKS, globals: memoryStore() });
    const all = await other.dump(msg.sw_interface_dump, { sw_if_index: 0xffffffff });
    const lo = all.find((i) => i.interface_name === underlay);
    if (lo) await removeUnderlay(other, { name: lo.interface_name, swIfIndex: lo.sw_if_index });
    await client.close();
    await other.close();
    await target.close();
    await rm(dir, { recursive: true, force: true });
  });

  const socketOf = (name: string): string => path.join(dir, 'vhost', 'nested', `${name}.sock`);
  function config(
    opts: { ports?: Record<string, unknown>[]; vpcMtu?: number; underlayMtu?: number } = {},
  ): AgentConfig {
    return validateConfig({
      node: {
        name: 'hv1',
        underlay: {
          interface: underlay,
          address: '2001:db8::1/64',
          gateway: '2001:db8::2',
          ...(opts.underlayMtu && { mtu: opts.underlayMtu }),
        },
        vhostUser: { gid: QEMU_GID, mode: '0660', directoryMode: '0750', directory: dir },
        srv6: { locator: 'fc00:1::/48' },
      },
      vpcs: [
        {
          name: 'vpc-a',
          id: 10,
          subnets: ['10.0.0.0/24'],
          gateway: '10.0.0.1',
          ...(opts.vpcMtu && { mtu: opts.vpcMtu }),
        },
      ],
      ports: opts.ports ?? [
        {
          name: 'vm1',
          vpc: 'vpc-a',
          mac: '52:54:00:00:00:01',
          ip: '10.0.0.5',
          attach: { type: 'vhost-user', socket: socketOf('vm1') },
        },
        {
          name: 'vm2',
          vpc: 'vpc-a',
          mac: '52:54:00:00:00:02',
          ip: '10.0.0.6',
          attach: { type: 'vhost-user', socket: socketOf('vm2'), uid: QEMU_UID, mode: '0600' },
        },
      ],
    });
  }
  const run = (cfg: AgentConfig): Promise<ReconcileOutcome> =>
    reconcile(cfg, { client, host: NO_HOST_LINKS, globals });
  const failures = (o: ReconcileOutcome): string[] =>
    (o.result?.failed ?? []).map((x) => `${x.op.resource.key}: ${x.error.message}`);
  async function planned(cfg: AgentConfig): Promise<string[]> {
    const { plan } = await reconcile(cfg, { client, host: NO_HOST_LINKS, globals, planOnly: true });
    return plan.ops.map((o) => `${o.action} ${o.resource.key}`);
  }
  async function l3Mtus(): Promise<Map<string, number[]>> {
    const all = await client.dump(msg.sw_interface_dump, { sw_if_index: 0xffffffff });
    return new Map(all.filter((i) => i.tag.startsWith(tags.vmPort(''))).map((i) => [i.tag, [...i.mtu]]));
  }

  it(
    'creates the socket directory, lets the configured user and group connect, and plans nothing after',
    { skip: !ROOT && 'chown needs root' },
    async () => {
      const cfg = config();
      const first = await run(cfg);
      assert.deepEqual(failures(first), []);
      assert.deepEqual(first.plan.pending, []);

      const nested = await lstat(path.dirname(socketOf('vm1')));
      assert.ok(nested.isDirectory());
      assert.equal(nested.mode & 0o777, 0o750, 'created with directoryMode, whatever the umask');
      assert.equal(nested.gid, QEMU_GID, 'and the sockets group, so the group can reach the sockets');
      const vm1 = await lstat(socketOf('vm1'));
      assert.ok(vm1.isSocket());
      assert.deepEqual([vm1.uid, vm1.gid, vm1.mode & 0o777], [0, QEMU_GID, 0o660], 'node defaults');
      const vm2 = await lstat(socketOf('vm2'));
      assert.deepEqual(
        [vm2.uid, vm2.gid, vm2.mode & 0o777],
        [QEMU_UID, QEMU_GID, 0o600],
        "the port's own uid and mode",
      );
      assert.deepEqual(await planned(cfg), []);
    },
  );

  it(
    'gives a re-created socket its access again in the same pass',
    { skip: !ROOT && 'chown needs root' },
    async () => {
      const cfg = config();
      // What a VPP restart does to a port: gone from VPP, and bound anew as root when re-created.
      const all = await other.dump(msg.sw_interface_dump, { sw_if_index: 0xffffffff });
      const vm1 = all.find((i) => i.tag === tags.vmPort('vm1'))!;
      await other.call(msg.delete_vhost_user_if, { sw_if_index: vm1.sw_if_index });
      const ops = await planned(cfg);
      assert.ok(
        ops.includes(`create socket-access:${socketOf('vm1')}`),
        `re-applied with the port: ${ops.join(', ')}`,
      );
      assert.deepEqual(failures(await run(cfg)), []);
      const st = await lstat(socketOf('vm1'));
      assert.deepEqual([st.uid, st.gid, st.mode & 0o777], [0, QEMU_GID, 0o660]);
      assert.deepEqual(await planned(cfg), []);
    },
  );

  it('puts every VM port at its VPC MTU, and changes it in place', async () => {
    const cfg = config({
      ports: [
        {
          name: 'vm1',
          vpc: 'vpc-a',
          mac: '52:54:00:00:00:01',
          ip: '10.0.0.5',
          attach: { type: 'vhost-user', socket: socketOf('vm1') },
        },
      ],
    });
    assert.deepEqual(failures(await run(cfg)), []);
    assert.deepEqual(
      (await l3Mtus()).get(tags.vmPort('vm1')),
      [1460, 0, 0, 0],
      'underlay 1500 − 40, as the L3 MTU',
    );

    const jumbo = config({
      underlayMtu: 9000,
      vpcMtu: 8000,
      ports: [
        {
          name: 'vm1',
          vpc: 'vpc-a',
          mac: '52:54:00:00:00:01',
          ip: '10.0.0.5',
          attach: { type: 'vhost-user', socket: socketOf('vm1') },
        },
      ],
    });
    assert.deepEqual(await planned(jumbo), [`update interface-mtu:${tags.vmPort('vm1')}`]);
    assert.deepEqual(failures(await run(jumbo)), []);
    assert.deepEqual((await l3Mtus()).get(tags.vmPort('vm1')), [8000, 0, 0, 0]);
    assert.deepEqual(await planned(jumbo), []);

    // Someone sets a per-protocol MTU by hand: vppnet puts its own back.
    const vm1 = (await client.dump(msg.sw_interface_dump, { sw_if_index: 0xffffffff })).find(
      (i) => i.tag === tags.vmPort('vm1'),
    )!;
    await other.call(msg.sw_interface_set_mtu, { sw_if_index: vm1.sw_if_index, mtu: [8000, 1500, 0, 0] });
    assert.deepEqual(await planned(jumbo), [`update interface-mtu:${tags.vmPort('vm1')}`]);
    await run(jumbo);
    assert.deepEqual((await l3Mtus()).get(tags.vmPort('vm1')), [8000, 0, 0, 0]);
  });

  it('never lets VPP replace a file that is not a socket, and blames only that port', async () => {
    const precious = path.join(dir, 'precious.sock');
    await writeFile(precious, 'not a socket');
    const linked = path.join(dir, 'linked.sock');
    await symlink(precious, linked);
    const cfg = config({
      ports: [
        {
          name: 'vm1',
          vpc: 'vpc-a',
          mac: '52:54:00:00:00:01',
          ip: '10.0.0.5',
          attach: { type: 'vhost-user', socket: socketOf('vm1') },
        },
        {
          name: 'vm5',
          vpc: 'vpc-a',
          mac: '52:54:00:00:00:05',
          ip: '10.0.0.9',
          attach: { type: 'vhost-user', socket: precious },
        },
        {
          name: 'vm6',
          vpc: 'vpc-a',
          mac: '52:54:00:00:00:06',
          ip: '10.0.0.10',
          attach: { type: 'vhost-user', socket: linked },
        },
      ],
    });
    try {
      const outcome = await run(cfg);
      const byKey = new Map((outcome.result?.failed ?? []).map((x) => [x.op.resource.key, x.error.message]));
      for (const [vm, socket] of [
        ['vm5', precious],
        ['vm6', linked],
      ] as const)
        assert.match(
          byKey.get(`interface:${tags.vmPort(vm)}`) ?? '',
          new RegExp(
            `vhost-user socket ${socket}: refusing to create it: the path exists and is not a socket`,
          ),
          vm,
        );
      assert.equal(await readFile(precious, 'utf8'), 'not a socket', 'the file is untouched');
      assert.ok((await lstat(linked)).isSymbolicLink(), 'the symlink is untouched');
      assert.ok((await lstat(socketOf('vm1'))).isSocket(), 'the other port is made');
    } finally {
      await rm(precious, { force: true });
      await rm(linked, { force: true });
    }
  });

  it(
    'names the socket and the cause when VPP cannot bind it, and blames only that port',
    { skip: SIM_ONLY },
    async () => {
      // The socket path is taken by a directory: vppnet refuses before VPP would try.
      const taken = path.join(dir, 'taken');
      await mkdir(path.join(taken, 'vm3.sock'), { recursive: true });
      const blocked = path.join(dir, 'file-not-dir');
      await writeFile(blocked, '');
      const cfg = config({
        ports: [
          {
            name: 'vm1',
            vpc: 'vpc-a',
            mac: '52:54:00:00:00:01',
            ip: '10.0.0.5',
            attach: { type: 'vhost-user', socket: socketOf('vm1') },
          },
          {
            name: 'vm3',
            vpc: 'vpc-a',
            mac: '52:54:00:00:00:03',
            ip: '10.0.0.7',
            attach: { type: 'vhost-user', socket: path.join(taken, 'vm3.sock') },
          },
          {
            name: 'vm4',
            vpc: 'vpc-a',
            mac: '52:54:00:00:00:04',
            ip: '10.0.0.8',
            attach: { type: 'vhost-user', socket: path.join(blocked, 'vm4.sock') },
          },
        ],
      });
      const outcome = await run(cfg);
      const byKey = new Map((outcome.result?.failed ?? []).map((x) => [x.op.resource.key, x.error.message]));
      assert.match(
        byKey.get(`interface:${tags.vmPort('vm3')}`) ?? '',
        new RegExp(
          `vhost-user socket ${path.join(taken, 'vm3.sock')}: refusing to create it: the path exists and is a directory`,
        ),
      );
      assert.match(
        byKey.get(`host-directory:${blocked}`) ?? '',
        new RegExp(`${blocked} exists and is not a directory`),
      );
      const portOf = portScope(cfg);
      const failedPorts = (outcome.result?.failed ?? []).map((x) => portOf(x.op.resource));
      assert.deepEqual(failedPorts.sort(), ['vm3', 'vm4'], 'each failure is its own port');
      const skippedPorts = new Set((outcome.result?.skipped ?? []).map((x) => portOf(x.op.resource)));
      assert.ok(![...skippedPorts].includes(undefined), 'nothing of the node waits for them');
      assert.ok(![...skippedPorts].includes('vm1'));
    },
  );
});
