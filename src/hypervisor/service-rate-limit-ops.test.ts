/**
 * The VM rate limit's operations on a RecordingVppApi (services/vm-rate-limit.ts): one that fails
 * part way leaves nothing behind, and a VM port that inherits a binding.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InterfaceRegistry } from '../dataplane/interface-registry.js';
import { AclRegistry } from '../dataplane/acl-registry.js';
import { NO_HOST_FILES } from '../dataplane/context.js';
import { tags } from '../dataplane/keys.js';
import { MACIP } from '../services/context.js';
import { vmRateLimitDescriptor, vmRateTable6Descriptor } from '../services/vm-rate-limit.js';
import { RecordingVppApi } from '../vpp/client/testing/recording-vpp-api.js';
import { msg } from '../vpp/messages/index.js';
import { NO_HOST_LINKS } from '../../test/support/no-host-links.js';
import {
  METADATA,
  recordingContext,
  limit,
  sessionOps,
  tableOps,
  policerOps,
  bindOps,
} from '../../test/support/service-rate-limit-fixture.js';

describe('a VM rate limit that fails part way', () => {
  it('leaves neither its table nor its policer behind, and reports the failing message with its retval', async () => {
    const vpp = new RecordingVppApi({ state: 'ready' })
      .answerDump(msg.policer_classify_dump, () => [])
      .answer(msg.policer_add, () => ({ policer_index: 3 }))
      .answer(msg.classify_add_del_table, (input) => (input.is_add ? { new_table_index: 7 } : {}))
      .answer(msg.classify_add_del_session, () => ({ retval: -6 }));
    const interfaces = new InterfaceRegistry();
    interfaces.set('vppnet:vm:vm1', 5);
    const ctx = {
      client: vpp,
      interfaces,
      host: NO_HOST_LINKS,
      files: NO_HOST_FILES,
      acls: new AclRegistry(),
      macips: new AclRegistry(MACIP),
    };
    const resource = vmRateLimitDescriptor.resource({
      port: 'vm1',
      iface: 'vppnet:vm:vm1',
      rateKbps: 1000,
      burstBytes: 65536,
      destinations: [METADATA],
      sources6: [],
    });
    await assert.rejects(
      vmRateLimitDescriptor.create(ctx, resource),
      /classify_add_del_session: VPP returned -6/,
    );
    assert.deepEqual(tableOps(vpp), ['add 1/2', 'del 7']);
    assert.deepEqual(policerOps(vpp), [`false ${tags.vmRatePolicer('vm1')}`]);
    assert.equal(vpp.requestsFor(msg.policer_classify_set_interface).length, 0, 'never bound');
  });

  it('with IPv6: a failing IPv6 session unbinds and removes the IPv4 table and the policer', async () => {
    const vpp = new RecordingVppApi({ state: 'ready' })
      .answer(msg.policer_add, () => ({ policer_index: 3 }))
      .answer(msg.classify_add_del_table, (input) => (input.is_add ? { new_table_index: 7 } : {}))
      .answer(msg.classify_add_del_session, (input) => ({ retval: input.table_index === 20 ? -6 : 0 }));
    const ctx = recordingContext(vpp, new Map([[9, { ip4: undefined, l2: 20 }]]));
    await assert.rejects(
      vmRateLimitDescriptor.create(ctx, limit({ sources6: ['fd00:ec2:0:ff::1'] })),
      /classify_add_del_session: VPP returned -6/,
    );
    assert.deepEqual(sessionOps(vpp), ['add 7 3', 'add 20 3']);
    assert.deepEqual(bindOps(vpp), ['true 5 7 - -', 'false 5 7 - -']);
    assert.deepEqual(tableOps(vpp), ['add 1/2', 'del 7']);
    assert.deepEqual(policerOps(vpp), [`false ${tags.vmRatePolicer('vm1')}`]);
    assert.deepEqual([...(ctx.policerBindings ?? [])], [[9, { ip4: undefined, l2: 20 }]]);
  });

  it('adding the IPv6 session in place: a failure leaves the rest as it was', async () => {
    const vpp = new RecordingVppApi({ state: 'ready' }).answer(msg.classify_add_del_session, () => ({
      retval: -6,
    }));
    const ctx = recordingContext(
      vpp,
      new Map([
        [5, { ip4: 7, l2: undefined }],
        [9, { ip4: undefined, l2: 20 }],
      ]),
    );
    const found = { swIfIndex: 5, table: 7, policer: 3, table6: undefined };
    await assert.rejects(
      (vmRateLimitDescriptor.update as NonNullable<typeof vmRateLimitDescriptor.update>)(
        ctx,
        limit({ sources6: ['fd00:ec2:0:ff::1'] }),
        limit({ found }),
      ),
      /classify_add_del_session: VPP returned -6/,
    );
    assert.deepEqual(sessionOps(vpp), ['add 20 3']);
    assert.deepEqual([tableOps(vpp), policerOps(vpp), bindOps(vpp)], [[], [], []], 'the policer stays');
  });

  it('a new IPv6 service address in place: the old session goes, the new one names the same policer', async () => {
    const vpp = new RecordingVppApi({ state: 'ready' });
    const ctx = recordingContext(vpp, new Map([[9, { ip4: undefined, l2: 20 }]]));
    const found = { swIfIndex: 5, table: 7, policer: 3, table6: 20 };
    await (vmRateLimitDescriptor.update as NonNullable<typeof vmRateLimitDescriptor.update>)(
      ctx,
      limit({ sources6: ['fd00:ec2:0:ff::2'] }),
      limit({ sources6: ['fd00:ec2:0:ff::1'], found }),
    );
    assert.deepEqual(sessionOps(vpp), ['del 20 0', 'add 20 3']);
    assert.deepEqual([tableOps(vpp), policerOps(vpp), bindOps(vpp)], [[], [], []]);
  });

  it('the IPv6 table: an inherited L2 binding on the BVI is unbound first; a failing binding removes the table', async () => {
    const vpp = new RecordingVppApi({ state: 'ready' })
      .answer(msg.classify_add_del_table, (input) => (input.is_add ? { new_table_index: 21 } : {}))
      .answer(msg.policer_classify_set_interface, (input) => ({ retval: input.is_add ? -65 : 0 }));
    const ctx = recordingContext(vpp, new Map([[9, { ip4: undefined, l2: 4 }]]));
    const table6 = vmRateTable6Descriptor.resource({
      iface: tags.servicesBvi(),
      buckets: 128,
      memory: 196608,
      strays: 0,
    });
    await assert.rejects(vmRateTable6Descriptor.create(ctx, table6), /VPP returned -65/);
    assert.deepEqual(bindOps(vpp), ['false 9 - - 4', 'true 9 - - 21']);
    assert.deepEqual(tableOps(vpp), ['add 0/3', 'del 21']);
    assert.equal(vpp.requestsFor(msg.classify_add_del_table)[0]?.nbuckets, 128);
  });
});

describe('a VM port that inherits a binding', () => {
  it("unbinds the stale table its sw_if_index kept, from the pass's reading, before binding its own", async () => {
    const vpp = new RecordingVppApi({ state: 'ready' })
      .answer(msg.policer_add, () => ({ policer_index: 3 }))
      .answer(msg.classify_add_del_table, () => ({ new_table_index: 7 }));
    const policerBindings = new Map([
      [5, { ip4: 2, l2: undefined }],
      [9, { ip4: undefined, l2: 20 }],
    ]);
    const ctx = recordingContext(vpp, policerBindings);
    await vmRateLimitDescriptor.create(ctx, limit({ sources6: ['fd00:ec2:0:ff::1'] }));
    assert.equal(vpp.requestsFor(msg.policer_classify_dump).length, 0, 'no dump per port');
    assert.deepEqual(bindOps(vpp), ['false 5 2 - -', 'true 5 7 - -']);
    assert.deepEqual(sessionOps(vpp), ['add 7 3', 'add 20 3'], 'the IPv6 session in the BVI’s table');
    assert.deepEqual(
      [...policerBindings].sort(([a], [b]) => a - b),
      [
        [5, { ip4: 7, l2: undefined }],
        [9, { ip4: undefined, l2: 20 }],
      ],
      'the reading follows what the pass did',
    );
  });
});

/** vm1's port is sw_if_index 5, the service BVI 9. */
