/**
 * What the simulator does to the host kernel for tap_create_v3, as VPP does it (plugins/tap/tap.c):
 * a real tap in the requested namespace, configured as asked, removed when VPP lets go of it
 * unless it is persistent. Needs root (network namespaces); skipped otherwise.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodeMessage } from '../codec/message-codec.js';
import { msg } from '../messages/index.js';
import { RawClient } from '../../../test/support/raw-client.js';
import { VppSimulator } from './index.js';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const NS = `vppnet-simtest-${process.pid}`;

function inNs(args: string[]): string {
  return execFileSync('ip', ['-n', NS, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function linkExists(name: string): boolean {
  try {
    inNs(['link', 'show', 'dev', name]);
    return true;
  } catch {
    return false;
  }
}

describe(
  'tap_create_v3 on the real host',
  { skip: isRoot ? false : 'needs root (network namespaces, tun/tap)' },
  () => {
    let dir = '';

    before(async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-sim-host-'));
      execFileSync('ip', ['netns', 'add', NS]);
    });

    after(async () => {
      execFileSync('ip', ['netns', 'del', NS]);
      await rm(dir, { recursive: true, force: true });
    });

    async function start(vhostNet: boolean): Promise<{ sim: VppSimulator; c: RawClient }> {
      const sim = await VppSimulator.start({
        socketPath: path.join(dir, `${vhostNet}-${Date.now()}.sock`),
        vhostNet,
      });
      const c = await RawClient.connect(sim.socketPath);
      await c.handshake();
      return { sim, c };
    }

    it('creates the tap in the namespace with its address, MAC and MTU; a non-persistent one goes with VPP', async () => {
      const { sim, c } = await start(true);
      const [p] = await c.call(
        msg.tap_create_v3,
        {
          id: 0xffffffff,
          host_namespace_set: true,
          host_namespace: NS,
          host_if_name_set: true,
          host_if_name: 'simtap0',
          host_mac_addr_set: true,
          host_mac_addr: '02:aa:bb:cc:dd:01',
          host_mtu_set: true,
          host_mtu_size: 1450,
          host_ip4_prefix_set: true,
          host_ip4_prefix: { address: '169.254.169.103', len: 24 },
        },
        1,
      );
      assert.equal(decodeMessage(msg.tap_create_v3_reply, p as Buffer).retval, 0);
      const link = inNs(['-o', 'link', 'show', 'dev', 'simtap0']);
      assert.match(link, /mtu 1450/);
      assert.match(link, /02:aa:bb:cc:dd:01/);
      assert.match(inNs(['-o', '-4', 'addr', 'show', 'dev', 'simtap0']), /169\.254\.169\.103\/24/);
      c.close();
      await sim.close();
      assert.equal(linkExists('simtap0'), false);
    });

    it('a persistent tap survives a restart; VPP forgets it', async () => {
      const { sim, c } = await start(true);
      const [p] = await c.call(
        msg.tap_create_v3,
        {
          id: 0xffffffff,
          host_namespace_set: true,
          host_namespace: NS,
          host_if_name_set: true,
          host_if_name: 'simtap1',
          tap_flags: 4,
        },
        1,
      );
      assert.equal(decodeMessage(msg.tap_create_v3_reply, p as Buffer).retval, 0);
      await sim.restart();
      assert.equal(linkExists('simtap1'), true);
      assert.deepEqual(
        sim.state.interfaces.map((i) => i.name),
        ['local0'],
      );
      c.close();
      await sim.close();
      assert.equal(linkExists('simtap1'), true);
      inNs(['link', 'del', 'simtap1']);
    });

    it('without /dev/vhost-net: -11, after the kernel device was made (left behind when persistent)', async () => {
      const { sim, c } = await start(false);
      const [p] = await c.call(
        msg.tap_create_v3,
        {
          id: 0xffffffff,
          host_namespace_set: true,
          host_namespace: NS,
          host_if_name_set: true,
          host_if_name: 'simtap2',
          tap_flags: 4,
        },
        1,
      );
      assert.equal(decodeMessage(msg.tap_create_v3_reply, p as Buffer).retval, -11);
      assert.equal(linkExists('simtap2'), true);
      const [q] = await c.call(
        msg.tap_create_v3,
        {
          id: 0xffffffff,
          host_namespace_set: true,
          host_namespace: NS,
          host_if_name_set: true,
          host_if_name: 'simtap3',
        },
        2,
      );
      assert.equal(decodeMessage(msg.tap_create_v3_reply, q as Buffer).retval, -11);
      assert.equal(linkExists('simtap3'), false);
      const [r] = await c.call(
        msg.tap_create_v3,
        {
          id: 0xffffffff,
          host_namespace_set: true,
          host_namespace: 'no-such-ns-here',
          host_if_name_set: true,
          host_if_name: 'x',
        },
        3,
      );
      assert.equal(decodeMessage(msg.tap_create_v3_reply, r as Buffer).retval, -12);
      c.close();
      await sim.close();
    });
  },
);
