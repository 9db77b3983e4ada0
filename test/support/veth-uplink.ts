/**
 * The underlay of real-packet tests: a veth pair whose host end VPP takes as an af_packet
 * interface (the node's uplink, `host-<hostEnd>`), and whose peer sits in a namespace that plays
 * the fabric at 2001:db8::2, so a test can send from outside the node (scapy out of `peer`).
 * Removed again with what vppnet routed through it, so a real VPP is left as found.
 */
import { spawnSync } from 'node:child_process';
import { ignoreRetval } from '../../src/vpp/client/retval-error.js';
import type { VppApi } from '../../src/vpp/client/vpp-api.js';
import { msg } from '../../src/vpp/messages/index.js';
import { sh } from './packets.js';
import { removeUnderlayRouting } from './underlay.js';

export const FABRIC_ADDRESS = '2001:db8::2';

export interface VethUplink {
  /** The VPP interface name for node.underlay.interface. */
  readonly name: string;
  readonly swIfIndex: number;
  /** The host end (VPP's side) and the fabric's end, in `netns`. */
  readonly hostEnd: string;
  readonly peer: string;
  readonly netns: string;
}

/** `id`: a few characters that make the link and namespace names this test's own. */
export async function createVethUplink(client: VppApi, id: string): Promise<VethUplink> {
  const hostEnd = `${id}a`;
  const peer = `${id}b`;
  const netns = `${id}ul`;
  sh('ip', 'netns', 'add', netns);
  sh('ip', 'link', 'add', hostEnd, 'type', 'veth', 'peer', 'name', peer);
  sh('ip', 'link', 'set', peer, 'netns', netns);
  sh('ip', 'link', 'set', hostEnd, 'up');
  sh('ip', '-n', netns, 'link', 'set', peer, 'up');
  sh('ip', '-n', netns, 'addr', 'add', `${FABRIC_ADDRESS}/64`, 'dev', peer, 'nodad');
  const afp = await client.call(msg.af_packet_create_v3, {
    mode: 1,
    hw_addr: '00:00:00:00:00:00',
    use_random_hw_addr: true,
    host_if_name: hostEnd,
    rx_frame_size: 0,
    tx_frame_size: 0,
    rx_frames_per_block: 0,
    tx_frames_per_block: 0,
    flags: 0,
    num_rx_queues: 1,
    num_tx_queues: 1,
  });
  return { name: `host-${hostEnd}`, swIfIndex: afp.sw_if_index, hostEnd, peer, netns };
}

export async function removeVethUplink(client: VppApi, u: VethUplink): Promise<void> {
  await removeUnderlayRouting(client, u.swIfIndex, FABRIC_ADDRESS);
  await client.call(msg.af_packet_delete, { host_if_name: u.hostEnd }).catch(ignoreRetval);
  spawnSync('ip', ['netns', 'del', u.netns]);
  spawnSync('ip', ['link', 'del', u.hostEnd]);
}
