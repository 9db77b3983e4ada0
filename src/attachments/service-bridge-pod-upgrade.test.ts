/**
 * The service bridge end to end: a bridge and pod port of the earlier design upgraded in place,
 * against a VPP (the simulator by default, a real VPP 26.06 with VPP_API_SOCKET), pods in real
 * network namespaces on veth pairs (root only). Each test leaves VPP, the host and the state
 * directory as it found them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hostVethName } from '../netns/index.js';
import { msg } from '../vpp/messages/index.js';
import { keys } from '../dataplane/keys.js';
import {
  NEEDS_ROOT,
  type Fixture,
  apply,
  planOps,
  podRequest,
  OWN_VPP_PER_SUITE,
  podAttachmentSuite,
} from '../../test/support/service-bridge-fixture.js';

void describe('pod attachments', { skip: NEEDS_ROOT || OWN_VPP_PER_SUITE }, () => {
  let f: Fixture;
  const netns = podAttachmentSuite((made) => (f = made));

  void it('upgrades a bridge and pod port of the earlier design in place: flags, then ACLs', async () => {
    const ns = netns();
    const req = podRequest(ns, 'c-upgrade');
    const id = hostVethName(req.containerId, req.ifname);
    await f.manager.attach(req);
    // What an agent before the hardening left: a learning bridge without ARP termination, and
    // one input ACL shared by every pod port.
    const F = msg.bd_flags_t.values;
    await f.other.call(msg.bridge_flags, {
      bd_id: 100,
      is_set: true,
      flags: F.BRIDGE_API_FLAG_LEARN | F.BRIDGE_API_FLAG_UU_FLOOD,
    });
    await f.other.call(msg.bridge_flags, { bd_id: 100, is_set: false, flags: F.BRIDGE_API_FLAG_ARP_TERM });
    const shared = await f.other.call(msg.acl_add_replace, {
      acl_index: 0xffffffff,
      tag: 'vppnet:pod-in',
      r: [],
    });
    const ifs = await f.client.dump(msg.sw_interface_dump, {
      sw_if_index: 0xffffffff,
      name_filter_valid: false,
    });
    const sw = ifs.find((i) => i.tag === `vppnet:pod:${id}`)?.sw_if_index ?? -1;
    const acls = await f.client.dump(msg.acl_dump, { acl_index: 0xffffffff });
    const out = acls.find((a) => a.tag === 'vppnet:pod-out')?.acl_index ?? -1;
    await f.other.call(msg.acl_interface_set_acl_list, {
      sw_if_index: sw,
      n_input: 1,
      acls: [shared.acl_index, out],
    });

    const ops = await planOps(f);
    assert.ok(ops.includes(`update ${keys.bridgeDomain(100)}`), ops.join(', '));
    assert.ok(ops.includes(`delete ${keys.acl('vppnet:pod-in')}`), ops.join(', '));
    await apply(f);
    const [bd] = await f.client.dump(msg.bridge_domain_dump, { bd_id: 100, sw_if_index: 0xffffffff });
    assert.deepEqual([bd?.learn, bd?.uu_flood, bd?.arp_term, bd?.flood], [false, false, true, false]);
    const after = await f.client.dump(msg.acl_dump, { acl_index: 0xffffffff });
    assert.equal(
      after.find((a) => a.tag === 'vppnet:pod-in'),
      undefined,
      'the shared ACL is gone',
    );
    const [binding] = await f.client.dump(msg.acl_interface_list_dump, { sw_if_index: sw });
    assert.deepEqual(binding?.acls, [after.find((a) => a.tag === `vppnet:pod-in:${id}`)?.acl_index, out]);
    assert.deepEqual(await planOps(f), []);
  });
});
