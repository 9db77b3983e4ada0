/**
 * The simulator's nat44-ei plugin against VPP 26.06 (src/plugins/nat/nat44-ei, see nat44-ei.ts):
 * identity mappings: retvals, the dump and its order, their /32s, and a disable with identity
 * mappings in VPC VRFs.
 *
 * The tests also run against a real VPP (VPP_API_SOCKET, nat44_ei plugin loaded): each starts with
 * the plugin disabled and ends by disabling it and removing what it made. nat44-ei leaves things
 * behind for good in several cases (table locks, identity mappings' /32s, tables locked by the
 * enable); tests that would do so skip on a real VPP unless VPPNET_DISPOSABLE_VPP=1 says it is a
 * fresh VPP to be thrown away (they use VRF ids and addresses of their own, so one run of the
 * nat44-ei files on a fresh VPP passes).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IN_USE, LEAVES_STATE, NONE, nat44EiSessions } from '../../../test/support/sim/nat44-ei-calls.js';

const { enable, disable, sm, im, smDump, imDump, imRow, ip4Tables, table, session, newTable } =
  nat44EiSessions();

describe(
  'simulator: nat44_ei_add_del_identity_mapping and nat44_ei_identity_mapping_dump',
  { skip: IN_USE },
  () => {
    it('one record per VRF under the first tag; deleted VRF by VRF; tables come and go', async () => {
      await session(async (c) => {
        assert.equal(await enable(c), 0);
        assert.equal(await im(c, true, '10.68.0.1', { vrf: 6801, tag: 'gw' }), 0);
        assert.equal(await im(c, true, '10.68.0.1', { vrf: 6801, tag: 'gw' }), -81);
        assert.equal(await im(c, true, '10.68.0.1', { vrf: 6802, tag: 'other' }), 0);
        assert.equal(await im(c, true, '10.68.0.2', { vrf: 6801, tag: 'gw2' }), 0);
        assert.deepEqual(await imDump(c), [
          imRow('10.68.0.1', 6801, 'gw'),
          imRow('10.68.0.1', 6802, 'gw'),
          imRow('10.68.0.2', 6801, 'gw2'),
        ]);
        assert.deepEqual(await smDump(c), []);
        assert.equal(await sm(c, true, '10.68.0.9', '10.68.0.2'), 0, 'a static add onto it...');
        assert.deepEqual(await smDump(c), []);
        assert.deepEqual(await imDump(c), [
          imRow('10.68.0.1', 6801, 'gw'),
          imRow('10.68.0.1', 6802, 'gw'),
          imRow('10.68.0.2', 6801, 'gw2'),
          imRow('10.68.0.2', 0, 'gw2'), // ...adds a record (VRF 0) to the identity mapping
        ]);
        assert.equal(await im(c, false, '10.68.0.2', { vrf: 0 }), 0);
        assert.deepEqual(await ip4Tables(c, 6801, 6802), [
          [6801, 'ipv4-VRF:6801'],
          [6802, 'ipv4-VRF:6802'],
        ]);
        assert.equal(await im(c, false, '10.68.0.1', { vrf: 6801 }), 0);
        assert.equal(await im(c, false, '10.68.0.1', { vrf: 6801 }), -6);
        assert.equal(await im(c, false, '10.68.0.3', { vrf: 6801 }), -6);
        assert.equal(await im(c, true, '10.68.0.1', { vrf: 6803, tag: 'new' }), 0, 'the freed record slot');
        assert.deepEqual(await imDump(c), [
          imRow('10.68.0.1', 6803, 'gw'),
          imRow('10.68.0.1', 6802, 'gw'),
          imRow('10.68.0.2', 6801, 'gw2'),
        ]);
        for (const [a, vrf] of [
          ['10.68.0.1', 6802],
          ['10.68.0.1', 6803],
          ['10.68.0.2', 6801],
        ] as const) {
          assert.equal(await im(c, false, a, { vrf }), 0);
        }
        assert.deepEqual(await imDump(c), []);
        assert.deepEqual(await ip4Tables(c, 6801, 6802, 6803), []);
      });
    });

    it(
      'VRF ~0: the inside VRF first, then a record for VRF ~0 (table "ipv4-VRF:-1")',
      { skip: LEAVES_STATE },
      async () => {
        await session(async (c) => {
          assert.equal(await enable(c, { inside_vrf: 6901 }), 0);
          assert.equal(await im(c, true, '10.69.0.1', { vrf: NONE, tag: 'g' }), 0);
          assert.equal(await im(c, true, '10.69.0.1', { vrf: NONE, tag: 'g' }), 0);
          assert.equal(await im(c, true, '10.69.0.1', { vrf: 6901 }), -81);
          assert.deepEqual(await imDump(c), [imRow('10.69.0.1', 6901, 'g'), imRow('10.69.0.1', NONE, 'g')]);
          assert.deepEqual(await ip4Tables(c, NONE), [[NONE, 'ipv4-VRF:-1']]);
          assert.equal(await im(c, false, '10.69.0.1', { vrf: NONE }), 0, 'a delete means the inside VRF');
          assert.equal(await im(c, false, '10.69.0.1', { vrf: NONE }), -6);
          assert.deepEqual(await imDump(c), [imRow('10.69.0.1', NONE, 'g')]);
        });
      },
    );

    it(
      'deleting without the address-only flag: -7 after the record went; disable keeps non-0 VRF locks',
      { skip: LEAVES_STATE },
      async () => {
        await session(async (c, made) => {
          assert.equal(await enable(c), 0);
          assert.equal(await im(c, true, '10.70.0.1', { vrf: 7001, tag: 't' }), 0);
          assert.equal(await im(c, false, '10.70.0.1', { vrf: 7001, flags: 0 }), -7);
          assert.deepEqual(await imDump(c), [], 'no record left to list');
          assert.equal(await im(c, false, '10.70.0.1', { vrf: 7001 }), -6);
          assert.deepEqual(await ip4Tables(c, 7001), [[7001, 'ipv4-VRF:7001']], 'its lock stays');
          assert.equal(
            await im(c, true, '10.70.0.1', { vrf: 7002, tag: 'u' }),
            0,
            'the mapping is still there',
          );
          assert.deepEqual(await imDump(c), [imRow('10.70.0.1', 7002, 't')]);
          // disable deletes identity mappings with VRF 0: records of other VRFs keep their locks
          await newTable(c, made, 7003);
          assert.equal(await im(c, true, '10.70.0.3', { vrf: 7003 }), 0);
          assert.equal(await im(c, true, '10.70.0.3', { vrf: 0 }), 0);
          assert.equal(await sm(c, true, '10.70.0.5', '169.252.70.5', { vrf: 7004 }), 0);
          assert.equal(await disable(c), 0, 'the last mapping (static) was deleted: 0');
          made.tables.splice(0);
          assert.equal(await table(c, 7003, false), 0);
          assert.deepEqual(await ip4Tables(c, 7001, 7002, 7003, 7004), [
            [7001, 'ipv4-VRF:7001'],
            [7002, 'ipv4-VRF:7002'],
            [7003, 'ipv4-VRF:7003'],
          ]);
          assert.equal(await enable(c), 0);
          assert.deepEqual(await imDump(c), []);
          assert.equal(await im(c, true, '10.70.0.1', { vrf: 7001 }), 0, 'a new mapping');
          assert.deepEqual(await imDump(c), [imRow('10.70.0.1', 7001)]);
        });
      },
    );
  },
);

describe('simulator: nat44-ei disable with identity mappings in VPC VRFs', { skip: IN_USE }, () => {
  it(
    'answers -168 when the last mapping is an identity mapping without a VRF-0 record, yet clears all',
    { skip: LEAVES_STATE },
    async () => {
      await session(async (c) => {
        assert.equal(await enable(c), 0);
        assert.equal(await sm(c, true, '10.76.0.5', '169.252.76.5', { vrf: 7601, tag: 'vm' }), 0);
        assert.equal(await im(c, true, '10.76.0.1', { vrf: 7601, tag: 'gw' }), 0);
        assert.equal(await im(c, true, '10.76.0.1', { vrf: 7602, tag: 'gw' }), 0);
        assert.equal(await disable(c), -168);
        assert.equal(await disable(c), -169, 'disabled all the same');
        assert.equal(await enable(c), 0);
        assert.deepEqual(await smDump(c), []);
        assert.deepEqual(await imDump(c), []);
        assert.deepEqual(
          await ip4Tables(c, 7601, 7602),
          [
            [7601, 'ipv4-VRF:7601'],
            [7602, 'ipv4-VRF:7602'],
          ],
          "the identity records' locks stay (the static mapping's went)",
        );
        // the same with a static mapping last in the pool: 0
        assert.equal(await im(c, true, '10.76.0.1', { vrf: 7601, tag: 'gw' }), 0);
        assert.equal(await sm(c, true, '10.76.0.5', '169.252.76.5', { vrf: 7601, tag: 'vm' }), 0);
        assert.equal(await disable(c), 0);
      });
    },
  );
});
