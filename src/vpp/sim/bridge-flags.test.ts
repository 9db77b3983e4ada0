/**
 * bridge_flags as VPP 26.06 answers it: the bridge domain's L2 input feature bitmap after the
 * change (the figures below were read off a real VPP 26.06; with VPP_API_SOCKET set, this runs
 * against one).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startVppTarget, type VppTarget } from '../../../test/support/vpp-target.js';
import { VppRetvalError } from '../client/retval-error.js';
import { VppClient } from '../client/vpp-client.js';
import { msg } from '../messages/index.js';

const F = msg.bd_flags_t.values;
const BD = 7077;

describe('bridge_flags', () => {
  let target: VppTarget;
  let client: VppClient;
  before(async () => {
    target = await startVppTarget();
    client = new VppClient({ socketPath: target.socketPath, healthCheckIntervalMs: 0 });
    await client.connect();
    await client.call(msg.bridge_domain_add_del_v2, {
      bd_id: BD,
      flood: true,
      uu_flood: true,
      forward: true,
      learn: true,
      arp_term: false,
      arp_ufwd: false,
      mac_age: 0,
      bd_tag: 'bridge-flags-test',
      is_add: true,
    });
  });
  after(async () => {
    await client.call(msg.bridge_domain_add_del_v2, { bd_id: BD, is_add: false });
    await client.close();
    await target.close();
  });

  it('sets and clears flags, answering the resulting feature bitmap', async () => {
    const steps: [boolean, number][] = [
      [false, F.BRIDGE_API_FLAG_LEARN | F.BRIDGE_API_FLAG_UU_FLOOD],
      [true, F.BRIDGE_API_FLAG_ARP_TERM],
      [false, F.BRIDGE_API_FLAG_FLOOD],
      [true, F.BRIDGE_API_FLAG_ARP_UFWD],
    ];
    const bitmaps: string[] = [];
    for (const [isSet, flags] of steps) {
      const r = await client.call(msg.bridge_flags, { bd_id: BD, is_set: isSet, flags });
      bitmaps.push(r.resulting_feature_bitmap.toString(16));
    }
    assert.deepEqual(bitmaps, ['fffffd87', 'fffffd97', 'fffffd93', 'fffffd9b']);
    const [bd] = await client.dump(msg.bridge_domain_dump, { bd_id: BD, sw_if_index: 0xffffffff });
    assert.deepEqual(
      [bd?.learn, bd?.uu_flood, bd?.flood, bd?.forward, bd?.arp_term, bd?.arp_ufwd],
      [false, false, false, true, true, true],
    );
  });

  it('refuses bridge domain 0 and one that does not exist', async () => {
    const retval = (bdId: number): Promise<number | undefined> =>
      client.call(msg.bridge_flags, { bd_id: bdId, is_set: true, flags: F.BRIDGE_API_FLAG_LEARN }).then(
        () => undefined,
        (e: unknown) => (e instanceof VppRetvalError ? e.retval : undefined),
      );
    assert.equal(await retval(0), -121, 'BD_NOT_MODIFIABLE');
    assert.equal(await retval(9_999_999), -6, 'NO_SUCH_ENTRY');
  });
});
