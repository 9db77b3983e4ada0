/**
 * Unprivileged tests: `ip` and `nft` are replaced by a scripted runner so any single command can
 * fail. The same helpers against real namespaces are exercised (as root) in
 * test/integration/cni-ipam.test.ts and host-end.test.ts.
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
import { keepHostEndsIsolated } from './host-end.js';
import { deletedLinkName } from './link-monitor.js';

/** A namespace file every process has; the runner never really enters it. */
const NETNS = '/proc/self/ns/net';
const IN_NETNS = `nsenter --net=${NETNS} -- ip`;

/**
 * Answers each command line with `script(line)` (success when it returns nothing) and records it.
 * An `ip -batch -` run is recorded as its commands, each with the run's prefix (`ip -n NS`), and
 * stops at the first that fails, as iproute2 does; an `nft -f -` run likewise (`nft COMMAND`), all
 * of it failing when one command does (one transaction).
 */
function scriptedRunner(script: (line: string) => Partial<CommandResult> | undefined): {
  runner: CommandRunner;
  lines: string[];
  runs: number;
} {
  const record = { lines: [] as string[], runs: 0 };
  const runner: CommandRunner = (file, args, input) => {
    record.runs++;
    const prefix = [file, ...args].join(' ');
    if (prefix === 'nft -f -') {
      const commands = (input ?? '').split('\n').filter((c) => c !== '');
      const answers = commands.map((command) => {
        record.lines.push(`nft ${command}`);
        return script(`nft ${command}`);
      });
      const failed = answers.find((a) => a?.exitCode !== undefined && a.exitCode !== 0);
      return Promise.resolve({ exitCode: 0, stdout: '', stderr: '', ...failed });
    }
    if (!prefix.endsWith(' -batch -')) {
      record.lines.push(prefix);
      return Promise.resolve({ exitCode: 0, stdout: '', stderr: '', ...script(prefix) });
    }
    const commands = (input ?? '').split('\n').filter((c) => c !== '');
    for (const [i, command] of commands.entries()) {
      const line = `${prefix.slice(0, -' -batch -'.length)} ${command}`;
      record.lines.push(line);
      const answer = script(line);
      if (answer && answer.exitCode !== undefined && answer.exitCode !== 0) {
        return Promise.resolve({
          exitCode: 1,
          stdout: '',
          stderr: `${answer.stderr ?? ''}\nCommand failed -:${i + 1}\n`,
        });
      }
    }
    return Promise.resolve({ exitCode: 0, stdout: '', stderr: '' });
  };
  return {
    runner,
    get lines() {
      return record.lines;
    },
    get runs() {
      return record.runs;
    },
  };
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
  const HOST_NS = `/proc/${process.pid}/ns/net`;

  void it('creates both ends, configures the pod end, all in one ip run, and cuts the host end off in one nft run', async () => {
    const recorded = scriptedRunner(() => undefined);
    const { runner, lines } = recorded;
    const written: string[] = [];
    const veth = await createVethIntoNetns(
      {
        ...options,
        addresses: ['169.254.169.103/24'],
        routes: [{ dst: '169.252.252.0/24', gw: '169.254.169.1' }],
      },
      runner,
      (key, value) => Promise.resolve(void written.push(`${key}=${value}`)),
    );
    assert.deepEqual(written, [
      'net/ipv6/conf/vpn0123456789ab/disable_ipv6=1',
      'net/ipv4/conf/vpn0123456789ab/arp_ignore=8',
      'net/ipv4/conf/vpn0123456789ab/rp_filter=1',
    ]);
    assert.match(veth.hostMac, /^[0-9a-f][26ae](:[0-9a-f]{2}){5}$/, 'random, unicast, locally administered');
    assert.deepEqual(veth, {
      ...veth,
      hostName: 'vpn0123456789ab',
      podIfName: 'eth1',
      podMac: '02:00:00:00:00:42',
      mtu: 1400,
    });
    assert.deepEqual(lines, [
      `${IN_NETNS} link add vpn0123456789ab address ${veth.hostMac} mtu 1400 up netns ${HOST_NS} ` +
        `type veth peer name eth1 address 02:00:00:00:00:42 mtu 1400`,
      `${IN_NETNS} link set dev eth1 up`,
      `${IN_NETNS} addr add 169.254.169.103/24 dev eth1`,
      `${IN_NETNS} route add 169.252.252.0/24 via 169.254.169.1 dev eth1`,
      'nft add table netdev vppnet',
      'nft add chain netdev vppnet ingress_vpn0123456789ab ' +
        '{ type filter hook ingress device "vpn0123456789ab" priority -500; policy drop; }',
      'nft flush chain netdev vppnet ingress_vpn0123456789ab',
    ]);
    assert.equal(recorded.runs, 2);
  });

  void it('deletes the pair again when nft cannot drop what the host end receives, and says why', async () => {
    const { runner, lines } = scriptedRunner((line) =>
      line.startsWith('nft add chain')
        ? { exitCode: 1, stderr: 'Error: Could not process rule: Operation not supported' }
        : undefined,
    );
    await assert.rejects(
      createVethIntoNetns(options, runner, () => Promise.resolve()),
      (err: unknown) => {
        assert.ok(err instanceof NetnsError);
        assert.equal(err.code, 'VPPNET_ERR_NFT_COMMAND');
        assert.match(err.message, /Operation not supported/);
        return true;
      },
    );
    assert.equal(lines.at(-1), `${IN_NETNS} link del dev eth1`);
    // nft not installed: the runner cannot start it.
    const missing = scriptedRunner(() => undefined);
    const withoutNft: CommandRunner = (file, args, input) =>
      file === 'nft'
        ? Promise.reject(new NetnsError('VPPNET_ERR_IP_COMMAND', 'cannot run nft: spawn nft ENOENT'))
        : missing.runner(file, args, input);
    await assert.rejects(
      createVethIntoNetns(options, withoutNft, () => Promise.resolve()),
      (err: unknown) => {
        assert.ok(err instanceof NetnsError);
        assert.equal(err.code, 'VPPNET_ERR_NFT_COMMAND');
        assert.match(err.message, /spawn nft ENOENT.*nftables/);
        return true;
      },
    );
    assert.equal(missing.lines.at(-1), `${IN_NETNS} link del dev eth1`);
  });

  void it('deletes the pair again when its host end cannot be cut off', async () => {
    const { runner, lines } = scriptedRunner(() => undefined);
    await rejectsWithCode(
      createVethIntoNetns(options, runner, (key) =>
        key.endsWith('/rp_filter') ? Promise.reject(new Error('EPERM')) : Promise.resolve(),
      ),
      'VPPNET_ERR_IP_COMMAND',
    );
    assert.equal(lines.at(-1), `${IN_NETNS} link del dev eth1`);
  });

  void it('reports a pod interface name already taken in the netns', async () => {
    const { runner, lines } = scriptedRunner((line) => {
      if (line.startsWith(`${IN_NETNS} link add`)) return EEXIST;
      if (line === `${IN_NETNS} -j link show dev eth1`) return LINK_JSON('eth1', '02:00:00:00:00:01');
      return undefined;
    });
    await rejectsWithCode(createVethIntoNetns(options, runner), 'VPPNET_ERR_POD_IFNAME_EXISTS');
    assert.ok(!lines.some((line) => line.includes(' del ')), 'nothing of the pod is touched');
  });

  void it('reports a host name already in use', async () => {
    const { runner } = scriptedRunner((line) => {
      if (line.startsWith(`${IN_NETNS} link add`)) return EEXIST;
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
    assert.equal(lines.at(-1), `${IN_NETNS} link del dev eth1`);
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
    // A valid link name, but no chain name for nft.
    await rejectsWithCode(
      createVethIntoNetns({ ...options, hostName: 'vpn{x}' }, runner),
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

  void it('sets the link up, then addresses, then routes, in one ip run', async () => {
    const recorded = scriptedRunner(() => undefined);
    const { runner, lines } = recorded;
    await configurePodInterface(config, runner);
    assert.equal(recorded.runs, 1);
    assert.deepEqual(lines, [
      `${IN_NETNS} link set dev eth1 up`,
      `${IN_NETNS} addr add 169.254.169.103/24 dev eth1`,
      `${IN_NETNS} addr add 169.254.169.104/24 dev eth1`,
      `${IN_NETNS} route add 169.252.252.0/24 via 169.254.169.1 dev eth1`,
    ]);
  });

  void it('removes what it added, newest first, when a step fails, and names that step', async () => {
    const { runner, lines } = scriptedRunner((line) =>
      line.includes('route add') ? { exitCode: 2, stderr: 'Error: Nexthop has invalid gateway.' } : undefined,
    );
    await assert.rejects(configurePodInterface(config, runner), (err: unknown) => {
      assert.ok(err instanceof NetnsError);
      assert.equal(err.code, 'VPPNET_ERR_IP_COMMAND');
      assert.match(err.message, /ip route add 169\.252\.252\.0\/24 via 169\.254\.169\.1 dev eth1 failed/);
      assert.match(err.message, /Nexthop has invalid gateway/);
      assert.doesNotMatch(err.message, /Command failed/);
      return true;
    });
    assert.deepEqual(
      lines.filter((line) => line.includes(' del ')),
      [
        `${IN_NETNS} addr del 169.254.169.104/24 dev eth1`,
        `${IN_NETNS} addr del 169.254.169.103/24 dev eth1`,
      ],
    );
  });

  void it('does not share an address someone else already put there', async () => {
    const { runner, lines } = scriptedRunner((line) =>
      line.includes('addr add 169.254.169.103/24')
        ? { exitCode: 2, stderr: 'RTNETLINK answers: File exists' }
        : undefined,
    );
    await rejectsWithCode(configurePodInterface(config, runner), 'VPPNET_ERR_IP_COMMAND');
    assert.deepEqual(
      lines.filter((line) => line.includes(' del ')),
      [],
      'the existing address stays, nothing else was added',
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

  void it('deletes a host link, then its ingress chain, and answers false when it is already gone', async () => {
    const { runner, lines } = scriptedRunner((line) =>
      line.startsWith('nft ')
        ? line.endsWith('ingress_here0') || line.endsWith('ingress_going0')
          ? undefined
          : line.endsWith('ingress_stuck0')
            ? { exitCode: 1, stderr: 'Error: Could not process rule: Device or resource busy' }
            : // Deleted with its device (kernels before 6.16), or never made.
              { exitCode: 1, stderr: 'Error: Could not process rule: No such file or directory' }
        : line.endsWith('gone0')
          ? { exitCode: 1, stderr: 'Cannot find device "gone0"' }
          : line.endsWith('going0')
            ? // Resolved, then removed by the kernel before the delete (its peer's netns went).
              { exitCode: 2, stderr: 'RTNETLINK answers: No such device' }
            : line.endsWith('busy0')
              ? { exitCode: 2, stderr: 'RTNETLINK answers: Operation not permitted' }
              : undefined,
    );
    assert.equal(await deleteHostLink('here0', runner), true);
    assert.deepEqual(lines, ['ip link del dev here0', 'nft delete chain netdev vppnet ingress_here0']);
    assert.equal(await deleteHostLink('gone0', runner), false);
    // A chain that outlived its link (kernels since 6.16 keep it) goes all the same.
    assert.equal(await deleteHostLink('going0', runner), false);
    assert.equal(lines.at(-1), 'nft delete chain netdev vppnet ingress_going0');
    await rejectsWithCode(deleteHostLink('busy0', runner), 'VPPNET_ERR_IP_COMMAND');
    assert.ok(
      !lines.includes('nft delete chain netdev vppnet ingress_busy0'),
      'the chain stays with its link',
    );
    await rejectsWithCode(deleteHostLink('stuck0', runner), 'VPPNET_ERR_NFT_COMMAND');
  });
});

void describe('keepHostEndsIsolated', () => {
  const chainOf = (name: string): string =>
    `nft add chain netdev vppnet ingress_${name} ` +
    `{ type filter hook ingress device "${name}" priority -500; policy drop; }`;
  const LIST = 'nft -j list table netdev vppnet';
  /** nft's JSON listing of the table with these chains. */
  const listing = (...chains: string[]): Partial<CommandResult> => ({
    stdout: JSON.stringify({
      nftables: [
        { metainfo: { version: '1.0.6', json_schema_version: 1 } },
        { table: { family: 'netdev', name: 'vppnet', handle: 1 } },
        ...chains.map((name, i) => ({
          chain: { family: 'netdev', table: 'vppnet', name, handle: i + 2, type: 'filter', hook: 'ingress' },
        })),
      ],
    }),
  });
  /** `ip -o link show` with these links. */
  const linksShown = (...names: string[]): Partial<CommandResult> => ({
    stdout: names
      .map((n, i) => `${i + 1}: ${n}${n === 'lo' ? '' : '@if9'}: <BROADCAST,UP> mtu 1500`)
      .join('\n'),
  });

  void it('gives every host end its chain again in one nft run, and reads what else the table has', async () => {
    const recorded = scriptedRunner((line) =>
      line === LIST
        ? listing('ingress_lo', 'ingress_vpv0')
        : line === 'ip -o link show'
          ? linksShown('lo', 'vpv0')
          : undefined,
    );
    await keepHostEndsIsolated(['lo', 'vpv0'], recorded.runner);
    assert.deepEqual(recorded.lines, [
      'nft add table netdev vppnet',
      chainOf('lo'),
      'nft flush chain netdev vppnet ingress_lo',
      chainOf('vpv0'),
      'nft flush chain netdev vppnet ingress_vpv0',
      LIST,
      'ip -o link show',
    ]);
  });

  void it('deletes the chains of host ends that are gone, and no other chain', async () => {
    const recorded = scriptedRunner((line) =>
      line === LIST
        ? listing('ingress_vpv0', 'ingress_vpvgone1', 'ingress_vpngone2', 'operators_own')
        : line === 'ip -o link show'
          ? linksShown('lo', 'vpv0')
          : undefined,
    );
    await keepHostEndsIsolated(['vpv0'], recorded.runner);
    assert.deepEqual(recorded.lines.slice(-2), [
      'nft delete chain netdev vppnet ingress_vpvgone1',
      'nft delete chain netdev vppnet ingress_vpngone2',
    ]);
  });

  void it('runs again without a host end deleted since it was listed (a kernel before 6.16 refuses its chain)', async () => {
    const gone = 'vpvgone0123456';
    const recorded = scriptedRunner((line) =>
      line === chainOf(gone)
        ? { exitCode: 1, stderr: 'Error: Could not process rule: No such file or directory' }
        : line === 'ip -o link show'
          ? linksShown('lo')
          : line === LIST
            ? listing('ingress_lo')
            : undefined,
    );
    await keepHostEndsIsolated(['lo', gone], recorded.runner);
    assert.deepEqual(recorded.lines.slice(-6), [
      'ip -o link show',
      'nft add table netdev vppnet',
      chainOf('lo'),
      'nft flush chain netdev vppnet ingress_lo',
      LIST,
      'ip -o link show',
    ]);
  });

  void it('fails when every host end is still there', async () => {
    const { runner } = scriptedRunner((line) =>
      line.startsWith('nft add table')
        ? { exitCode: 1, stderr: 'Error: Could not process rule: Operation not supported' }
        : line === 'ip -o link show'
          ? linksShown('lo')
          : undefined,
    );
    await rejectsWithCode(keepHostEndsIsolated(['lo'], runner), 'VPPNET_ERR_NFT_COMMAND');
  });

  void it('says what nft answered when the listing is not JSON', async () => {
    const { runner } = scriptedRunner((line) =>
      line === LIST ? { stdout: 'table netdev vppnet {' } : undefined,
    );
    await rejectsWithCode(keepHostEndsIsolated(['lo'], runner), 'VPPNET_ERR_NFT_COMMAND');
  });
});

void describe('deletedLinkName', () => {
  void it('names the link of a deletion announced by ip -o monitor link, and nothing else', () => {
    assert.equal(
      deletedLinkName(
        'Deleted 4315: vpnmon0@NONE: <BROADCAST,MULTICAST> mtu 1500 qdisc noop state DOWN \\    link/ether ae:d4',
      ),
      'vpnmon0',
    );
    assert.equal(deletedLinkName('Deleted 7: tap3: <BROADCAST> mtu 1500'), 'tap3');
    assert.equal(deletedLinkName('4315: vpnmon0@if2: <BROADCAST,MULTICAST,UP> mtu 1500'), undefined);
    assert.equal(deletedLinkName('Deleted inet 169.254.169.5/24 scope global eth1'), undefined);
  });
});
