/**
 * The simulator's nat44-ei plugin against VPP 26.06 (src/plugins/nat/nat44-ei, see nat44-ei.ts):
 * static mappings: retvals, the dump and its order, and what they do to the FIB.
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
import {
  IN_USE,
  LEAVES_STATE,
  NONE,
  STATIC_MAPPING_ONLY,
  nat44EiSessions,
} from '../../../test/support/sim/nat44-ei-calls.js';

const { enable, disable, sm, im, smDump, imDump, smRow, imRow, ip4Tables, session } = nat44EiSessions();

describe(
  'simulator: nat44_ei_add_del_static_mapping and nat44_ei_static_mapping_dump',
  { skip: IN_USE },
  () => {
    it('address-only mappings: -81 per external address and per (local, VRF), -6, tags, pool order', async () => {
      await session(async (c) => {
        assert.equal(await enable(c), 0);
        assert.equal(await sm(c, true, '10.63.0.5', '169.252.63.5', { vrf: 0, tag: 'vm1' }), 0);
        assert.equal(await sm(c, true, '10.63.0.5', '169.252.63.5', { vrf: 0, tag: 'vm1' }), -81);
        assert.equal(await sm(c, true, '10.63.0.6', '169.252.63.5', { vrf: 0 }), -81, 'external taken');
        assert.equal(await sm(c, true, '10.63.0.6', '169.252.63.6', { vrf: 0, tag: 'x'.repeat(63) }), 0);
        assert.equal(await sm(c, true, '10.63.0.7', '169.252.63.7', { vrf: 0 }), 0);
        assert.deepEqual(await smDump(c), [
          smRow('10.63.0.5', '169.252.63.5', 0, 'vm1'),
          smRow('10.63.0.6', '169.252.63.6', 0, 'x'.repeat(63)),
          smRow('10.63.0.7', '169.252.63.7', 0),
        ]);
        assert.deepEqual(await imDump(c), [], 'static mappings are not identity mappings');
        assert.equal(await sm(c, false, '10.63.0.5', '169.252.63.99'), -6);
        assert.equal(await sm(c, false, '10.63.0.5', '169.252.63.5'), 0);
        assert.equal(await sm(c, false, '10.63.0.5', '169.252.63.5'), -6);
        assert.equal(await sm(c, true, '10.63.0.8', '169.252.63.8', { tag: 'reuse' }), 0);
        assert.deepEqual(await smDump(c), [
          smRow('10.63.0.8', '169.252.63.8', 0, 'reuse'),
          smRow('10.63.0.6', '169.252.63.6', 0, 'x'.repeat(63)),
          smRow('10.63.0.7', '169.252.63.7', 0),
        ]);
        assert.equal(await disable(c), 0);
        assert.equal(await enable(c), 0);
        assert.deepEqual(await smDump(c), [], 'a disable drops every mapping');
      });
    });

    it('a mapping creates and locks its VRF table; a delete finds it by external address only', async () => {
      await session(async (c) => {
        assert.equal(await enable(c), 0);
        assert.equal(await sm(c, true, '10.64.0.5', '169.252.64.5', { vrf: 6401, tag: 'a' }), 0);
        assert.equal(
          await sm(c, true, '10.64.0.5', '169.252.64.6', { vrf: 6402, tag: 'b' }),
          0,
          'another VRF',
        );
        assert.deepEqual(await ip4Tables(c, 6401, 6402), [
          [6401, 'ipv4-VRF:6401'],
          [6402, 'ipv4-VRF:6402'],
        ]);
        assert.deepEqual(await smDump(c), [
          smRow('10.64.0.5', '169.252.64.5', 6401, 'a'),
          smRow('10.64.0.5', '169.252.64.6', 6402, 'b'),
        ]);
        assert.equal(await sm(c, false, '10.64.0.5', '169.252.64.5', { vrf: 6401 }), 0);
        assert.deepEqual(await ip4Tables(c, 6401), [], 'its last lock gone, the table goes');
        // the request's VRF and local address are not checked: the mapping goes...
        assert.equal(await sm(c, false, '10.64.9.9', '169.252.64.6', { vrf: 6499 }), 0);
        assert.deepEqual(await smDump(c), []);
        assert.deepEqual(await ip4Tables(c, 6402, 6499), [], "...its own VRF's table is unlocked");
      });
    });

    it(
      'the stale local key of such a delete, and -81 refusals, leave table locks',
      { skip: LEAVES_STATE },
      async () => {
        await session(async (c) => {
          assert.equal(await enable(c), 0);
          assert.equal(await sm(c, true, '10.65.0.5', '169.252.65.5', { vrf: 6501 }), 0);
          assert.equal(await sm(c, false, '10.65.9.9', '169.252.65.5', { vrf: 6501 }), 0);
          assert.deepEqual(await ip4Tables(c, 6501), []);
          // the local key of 10.65.0.5 in VRF 6501 stayed: refused, after locking (creating) the table
          assert.equal(await sm(c, true, '10.65.0.5', '169.252.65.6', { vrf: 6501 }), -81);
          assert.deepEqual(await smDump(c), []);
          assert.deepEqual(await ip4Tables(c, 6501), [[6501, 'ipv4-VRF:6501']]);
          // -81 for a local address taken in its VRF: the table keeps the refused add's lock
          assert.equal(await sm(c, true, '10.65.0.7', '169.252.65.7', { vrf: 6502 }), 0);
          assert.equal(await sm(c, true, '10.65.0.7', '169.252.65.8', { vrf: 6502 }), -81);
          assert.equal(await sm(c, false, '10.65.0.7', '169.252.65.7', { vrf: 6502 }), 0);
          assert.deepEqual(await ip4Tables(c, 6502), [[6502, 'ipv4-VRF:6502']]);
          // port mappings need a pool address (none): -6, after the lock
          assert.equal(
            await sm(c, true, '10.65.0.9', '169.252.65.9', {
              vrf: 6503,
              flags: 0,
              proto: 6,
              lPort: 80,
              ePort: 8080,
            }),
            -6,
          );
          assert.deepEqual(await ip4Tables(c, 6503), [[6503, 'ipv4-VRF:6503']]);
          assert.deepEqual(await smDump(c), []);
        });
      },
    );

    it('VRF ~0 is the inside VRF', { skip: LEAVES_STATE }, async () => {
      await session(async (c) => {
        assert.equal(await enable(c, { inside_vrf: 6601 }), 0);
        assert.equal(await sm(c, true, '10.66.0.5', '169.252.66.5', { vrf: NONE, tag: 'in' }), 0);
        assert.deepEqual(await smDump(c), [smRow('10.66.0.5', '169.252.66.5', 6601, 'in')]);
        assert.equal(await sm(c, true, '10.66.0.5', '169.252.66.6', { vrf: 6601 }), -81, 'same local key');
        assert.equal(await sm(c, false, '10.66.0.5', '169.252.66.5', { vrf: NONE }), 0);
        assert.deepEqual(await smDump(c), []);
      });
    });

    it('STATIC_MAPPING_ONLY allows port mappings; protocols other than TCP/UDP/ICMP dump as 255', async () => {
      await session(async (c) => {
        assert.equal(await enable(c, { flags: STATIC_MAPPING_ONLY }), 0);
        const port = (isAdd: boolean, local: string, proto: number, lPort: number, ePort: number, tag = '') =>
          sm(c, isAdd, local, '169.252.67.5', { flags: 0, proto, lPort, ePort, tag });
        assert.equal(await port(true, '10.67.0.5', 6, 80, 8080, 'tcp'), 0);
        assert.equal(await port(true, '10.67.0.5', 17, 80, 8080, 'udp'), 0, 'another protocol, another key');
        assert.equal(await port(true, '10.67.0.6', 47, 80, 8081, 'gre'), 0);
        assert.equal(await port(true, '10.67.0.7', 132, 80, 8081), -81, 'all "other" protocols are one');
        assert.equal(await port(true, '10.67.0.6', 6, 80, 8080), -81);
        assert.deepEqual(await smDump(c), [
          smRow('10.67.0.5', '169.252.67.5', 0, 'tcp', { proto: 6, lPort: 80, ePort: 8080 }),
          smRow('10.67.0.5', '169.252.67.5', 0, 'udp', { proto: 17, lPort: 80, ePort: 8080 }),
          smRow('10.67.0.6', '169.252.67.5', 0, 'gre', { proto: 255, lPort: 80, ePort: 8081 }),
        ]);
        assert.equal(await port(false, '10.67.0.5', 0, 80, 8080), -6, 'the protocol is part of the key');
        assert.equal(await port(false, '10.67.0.5', 6, 80, 8080), 0);
        assert.equal(await port(false, '10.67.0.6', 47, 80, 8081), 0);
        assert.deepEqual(await smDump(c), [
          smRow('10.67.0.5', '169.252.67.5', 0, 'udp', { proto: 17, lPort: 80, ePort: 8080 }),
        ]);
        assert.equal(await im(c, true, '10.67.0.1', { flags: 0, proto: 17, port: 53, tag: 'dns' }), 0);
        assert.deepEqual(await imDump(c), [imRow('10.67.0.1', 0, 'dns', { proto: 17, port: 53 })]);
      });
    });
  },
);
