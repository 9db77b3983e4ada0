/**
 * Unprivileged tests: `ip` is replaced by a scripted runner so any single command can fail. The
 * same helpers against real namespaces are exercised (as root) in test/integration/cni-ipam.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import {
  configurePodInterface,
  createVethIntoNetns,
  deleteHostLink,
  hostVethName,
  NetnsError,
  readPodInterface,
  resolveNetns,
  type CommandResult,
  type CommandRunner,
} from './index.js';

/** A namespace file every process has; the runner never really enters it. */
const NETNS = '/proc/self/ns/net';
const IN_NETNS = `nsenter --net=${NETNS} -- ip`;

/** Answers each command line with `script(line)` (success when it returns nothing) and records it. */
function scriptedRunner(script: (line: string) => Partial<CommandResult> | undefined): {
  runner: CommandRunner;
  lines: string[];
} {
  const lines: string[] = [];
  const runner: CommandRunner = (file, args) => {
    const line = [file, ...args].join(' ');
    lines.push(line);
    return Promise.resolve({ exitCode: 0, stdout: '', stderr: '', ...script(line) });
  };
  return { runner, lines };
}

const NO_DEVICE = (name: string): Partial<CommandResult> => ({
  exitCode: 1,
  stderr: `Device "${name}" does not exist.\n`,
});
const LINK_JSON = (name: string, mac: string): Partial<CommandResult> => ({
  stdout: JSON.stringify([{ ifname: name, address: mac, mtu: 1400, flags: ['BROADCAST', 'UP'] }]),
});

async function rejectsWithCode(promise: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof NetnsError, `expected a NetnsError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    return true;
  });
}

void describe('hostVethName', () => {
  void it('is a 15-character name derived only from (containerId, ifname)', () => {
    const name = hostVethName('4f1c0d1e9a', 'eth1');
    assert.match(name, /^vpn[0-9a-f]{12}$/);
    assert.equal(name, hostVethName('4f1c0d1e9a', 'eth1'));
    assert.notEqual(name, hostVethName('4f1c0d1e9a', 'eth2'));
    // The separator keeps ("ab", "c") and ("a", "bc") apart.
    assert.notEqual(hostVethName('ab', 'c'), hostVethName('a', 'bc'));
  });
});

void describe('resolveNetns', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vppnet-netns-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  void it('accepts /proc/PID/ns/net as a path to enter with nsenter', async () => {
    assert.deepEqual(await resolveNetns(NETNS), { kind: 'path', path: NETNS });
  });

  void it('tells a missing namespace from a file that is not one', async () => {
    await rejectsWithCode(resolveNetns(join(dir, 'gone')), 'VPPNET_ERR_NETNS_NOT_FOUND');
    const plain = join(dir, 'plain');
    await writeFile(plain, '');
    await rejectsWithCode(resolveNetns(plain), 'VPPNET_ERR_NOT_A_NETNS');
    await rejectsWithCode(resolveNetns('var/run/netns/x'), 'VPPNET_ERR_INVALID_ARGUMENT');
  });
});

void describe('createVethIntoNetns', () => {
  const options = {
    hostName: 'vpn0123456789ab',
    netnsPath: NETNS,
    podIfName: 'eth1',
    mtu: 1400,
    mac: '02:00:00:00:00:42',
  };
  const EEXIST = { exitCode: 2, stderr: 'RTNETLINK answers: File exists\n' };

  void it('creates the pod end directly in the netns in one request, then sets it up', async () => {
    const { runner, lines } = scriptedRunner(() => undefined);
    const veth = await createVethIntoNetns(options, runner);
    assert.match(veth.hostMac, /^[0-9a-f][26ae](:[0-9a-f]{2}){5}$/, 'random, unicast, locally administered');
    assert.deepEqual(veth, {
      ...veth,
      hostName: 'vpn0123456789ab',
      podIfName: 'eth1',
      podMac: '02:00:00:00:00:42',
      mtu: 1400,
    });
    assert.deepEqual(lines, [
      `ip link add vpn0123456789ab address ${veth.hostMac} mtu 1400 up type veth ` +
        `peer name eth1 address 02:00:00:00:00:42 mtu 1400 netns ${NETNS}`,
      `${IN_NETNS} link set dev eth1 up`,
    ]);
  });

  void it('reports a pod interface name already taken in the netns', async () => {
    const { runner, lines } = scriptedRunner((line) => {
      if (line.startsWith('ip link add')) return EEXIST;
      if (line === `${IN_NETNS} -j link show dev eth1`) return LINK_JSON('eth1', '02:00:00:00:00:01');
      return undefined;
    });
    await rejectsWithCode(createVethIntoNetns(options, runner), 'VPPNET_ERR_POD_IFNAME_EXISTS');
    assert.ok(!lines.some((line) => line.includes(' del ')), 'nothing of the pod is touched');
  });

  void it('reports a host name already in use', async () => {
    const { runner } = scriptedRunner((line) => {
      if (line.startsWith('ip link add')) return EEXIST;
      if (line.endsWith('show dev eth1')) return NO_DEVICE('eth1');
      return undefined;
    });
    await rejectsWithCode(createVethIntoNetns(options, runner), 'VPPNET_ERR_HOST_LINK_EXISTS');
  });

  void it('deletes the pair again when a later step fails', async () => {
    const { runner, lines } = scriptedRunner((line) =>
      line === `${IN_NETNS} link set dev eth1 up`
        ? { exitCode: 2, stderr: 'RTNETLINK answers: Permission denied' }
        : undefined,
    );
    await rejectsWithCode(createVethIntoNetns(options, runner), 'VPPNET_ERR_IP_COMMAND');
    assert.equal(lines.at(-1), 'ip link del dev vpn0123456789ab');
  });

  void it('validates its arguments before running anything', async () => {
    const { runner, lines } = scriptedRunner(() => undefined);
    await rejectsWithCode(
      createVethIntoNetns({ ...options, podIfName: 'a-name-too-long-x' }, runner),
      'VPPNET_ERR_INVALID_ARGUMENT',
    );
    await rejectsWithCode(
      createVethIntoNetns({ ...options, mtu: 10 }, runner),
      'VPPNET_ERR_INVALID_ARGUMENT',
    );
    await rejectsWithCode(
      createVethIntoNetns({ ...options, mac: 'nope' }, runner),
      'VPPNET_ERR_INVALID_ARGUMENT',
    );
    assert.deepEqual(lines, []);
  });
});

void describe('configurePodInterface', () => {
  const config = {
    netnsPath: NETNS,
    ifname: 'eth1',
    addresses: ['169.254.169.103/24', '169.254.169.104/24'],
    routes: [{ dst: '169.252.252.0/24', gw: '169.254.169.1' }],
  };

  void it('sets the link up, then addresses, then routes', async () => {
    const { runner, lines } = scriptedRunner(() => undefined);
    await configurePodInterface(config, runner);
    assert.deepEqual(lines, [
      `${IN_NETNS} link set dev eth1 up`,
      `${IN_NETNS} addr add 169.254.169.103/24 dev eth1`,
      `${IN_NETNS} addr add 169.254.169.104/24 dev eth1`,
      `${IN_NETNS} route add 169.252.252.0/24 via 169.254.169.1 dev eth1`,
    ]);
  });

  void it('removes what it added (not what was there) when a step fails', async () => {
    const { runner, lines } = scriptedRunner((line) => {
      if (line.includes('addr add 169.254.169.103/24'))
        return { exitCode: 2, stderr: 'RTNETLINK answers: File exists' };
      if (line.includes('route add')) return { exitCode: 2, stderr: 'Error: Nexthop has invalid gateway.' };
      return undefined;
    });
    await rejectsWithCode(configurePodInterface(config, runner), 'VPPNET_ERR_IP_COMMAND');
    assert.deepEqual(
      lines.filter((line) => line.includes(' del ')),
      [`${IN_NETNS} addr del 169.254.169.104/24 dev eth1`],
    );
  });

  void it('reports a missing link as VPPNET_ERR_LINK_NOT_FOUND', async () => {
    const { runner } = scriptedRunner(() => ({ exitCode: 1, stderr: 'Cannot find device "eth1"' }));
    await rejectsWithCode(configurePodInterface(config, runner), 'VPPNET_ERR_LINK_NOT_FOUND');
  });

  void it('rejects malformed addresses before running anything', async () => {
    const { runner, lines } = scriptedRunner(() => undefined);
    await rejectsWithCode(
      configurePodInterface({ ...config, addresses: ['169.254.169.103'] }, runner),
      'VPPNET_ERR_INVALID_ARGUMENT',
    );
    await rejectsWithCode(
      configurePodInterface({ ...config, routes: [{ dst: '169.252.252.0/24', gw: 'gw' }] }, runner),
      'VPPNET_ERR_INVALID_ARGUMENT',
    );
    assert.deepEqual(lines, []);
  });
});

void describe('readPodInterface and deleteHostLink', () => {
  void it('reads MAC, MTU, state and addresses from ip -j', async () => {
    const { runner } = scriptedRunner(() => ({
      stdout: JSON.stringify([
        {
          ifname: 'eth1',
          address: '02:00:00:00:00:42',
          mtu: 1400,
          flags: ['BROADCAST', 'MULTICAST', 'UP', 'LOWER_UP'],
          addr_info: [
            { family: 'inet', local: '169.254.169.103', prefixlen: 24 },
            { family: 'inet6', local: 'fe80::42', prefixlen: 64 },
          ],
        },
      ]),
    }));
    assert.deepEqual(await readPodInterface(NETNS, 'eth1', runner), {
      name: 'eth1',
      mac: '02:00:00:00:00:42',
      mtu: 1400,
      up: true,
      addresses: ['169.254.169.103/24', 'fe80::42/64'],
    });
  });

  void it('deletes a host link, and answers false when it is already gone', async () => {
    const { runner } = scriptedRunner((line) =>
      line.endsWith('gone0') ? { exitCode: 1, stderr: 'Cannot find device "gone0"' } : undefined,
    );
    assert.equal(await deleteHostLink('here0', runner), true);
    assert.equal(await deleteHostLink('gone0', runner), false);
  });
});
