/**
 * The simulator's bridge-domain IP-to-MAC tables against VPP 26.06's l2_api.c
 * (vl_api_bd_ip_mac_add_del_t_handler, vl_api_bd_ip_mac_dump_t_handler) and l2_bd.c
 * (bd_add_del_ip_mac, bd_delete): retvals, replace and delete semantics, dump scope and order.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { msg } from '../messages/index.js';
import type { RawClient } from '../../../test/support/raw-client.js';
import { rawSessions, type Obj } from '../../../test/support/raw-session.js';
import { SIM_ONLY } from '../../../test/support/vpp-target.js';
import { Rv } from './retval.js';
import { hashUwordLow } from './vpp-hash.js';

const NONE = 0xffffffff;
const { start, rv, dump } = rawSessions('bd-ip-mac-test');

const bd = (c: RawClient, bdId: number, isAdd = true) =>
  rv(c, msg.bridge_domain_add_del, { bd_id: bdId, is_add: isAdd, arp_term: true });

function ipMac(c: RawClient, bdId: number, ip: string, mac: string, isAdd = true) {
  const address = ip.includes(':') ? { af: 1, un: { ip6: ip } } : { af: 0, un: { ip4: ip } };
  return rv(c, msg.bd_ip_mac_add_del, { is_add: isAdd, entry: { bd_id: bdId, ip: address, mac } });
}

/** [bd_id, ip, mac] */
async function entries(c: RawClient, bdId = NONE): Promise<[number, string, string][]> {
  return (await dump(c, msg.bd_ip_mac_dump, { bd_id: bdId })).map((d: Obj) => {
    const e = d.entry as { bd_id: number; ip: { af: number; un: { ip4: string; ip6: string } }; mac: string };
    return [e.bd_id, e.ip.af === 1 ? e.ip.un.ip6 : e.ip.un.ip4, e.mac];
  });
}

describe('simulator: bd_ip_mac_add_del and bd_ip_mac_dump', { skip: SIM_ONLY }, () => {
  it('retvals: -121 for bd_id 0, -6 unknown bridge domain; add replaces the MAC; delete needs the same MAC (-1)', async () => {
    const { c } = await start();
    assert.equal(await bd(c, 10), 0);
    assert.equal(await ipMac(c, 0, '10.0.0.1', '02:00:00:00:00:01'), Rv.BD_NOT_MODIFIABLE);
    assert.equal(await ipMac(c, 0, '10.0.0.1', '02:00:00:00:00:01', false), Rv.BD_NOT_MODIFIABLE);
    assert.equal(await ipMac(c, 11, '10.0.0.1', '02:00:00:00:00:01'), Rv.NO_SUCH_ENTRY);
    assert.equal(await ipMac(c, 10, '10.0.0.1', '02:00:00:00:00:01'), 0);
    assert.equal(await ipMac(c, 10, '10.0.0.1', '02:00:00:00:00:01'), 0); // the same again
    assert.equal(await ipMac(c, 10, '10.0.0.1', '02:00:00:00:00:02'), 0); // another MAC: replaced
    assert.deepEqual(await entries(c, 10), [[10, '10.0.0.1', '02:00:00:00:00:02']]);
    assert.equal(await ipMac(c, 10, '10.0.0.1', '02:00:00:00:00:01', false), Rv.UNSPECIFIED);
    assert.equal(await ipMac(c, 10, '10.0.0.9', '02:00:00:00:00:02', false), Rv.UNSPECIFIED);
    assert.equal(await ipMac(c, 10, '10.0.0.1', '02:00:00:00:00:02', false), 0);
    assert.equal(await ipMac(c, 10, '10.0.0.1', '02:00:00:00:00:02', false), Rv.UNSPECIFIED);
    assert.deepEqual(await entries(c, 10), []);
    // IPv6 likewise
    assert.equal(await ipMac(c, 10, '2001:db8::1', '02:00:00:00:00:06'), 0);
    assert.equal(await ipMac(c, 10, '2001:db8::1', '02:00:00:00:00:07'), 0);
    assert.equal(await ipMac(c, 10, '2001:db8::1', '02:00:00:00:00:06', false), Rv.UNSPECIFIED);
    assert.deepEqual(await entries(c, 10), [[10, '2001:db8::1', '02:00:00:00:00:07']]);
  });

  it('dump: ~0 every bridge domain by index, IPv4 before IPv6 in each; one bd_id; an unknown one nothing', async () => {
    const { c } = await start();
    assert.equal(await bd(c, 30), 0); // bd_index 1
    assert.equal(await bd(c, 20), 0); // bd_index 2
    await ipMac(c, 20, '2001:db8::2', '02:00:00:00:02:06');
    await ipMac(c, 20, '10.0.2.1', '02:00:00:00:02:04');
    await ipMac(c, 30, '10.0.3.1', '02:00:00:00:03:04');
    assert.deepEqual(await entries(c), [
      [30, '10.0.3.1', '02:00:00:00:03:04'],
      [20, '10.0.2.1', '02:00:00:00:02:04'],
      [20, '2001:db8::2', '02:00:00:00:02:06'],
    ]);
    assert.deepEqual(await entries(c, 20), [
      [20, '10.0.2.1', '02:00:00:00:02:04'],
      [20, '2001:db8::2', '02:00:00:00:02:06'],
    ]);
    assert.deepEqual(await entries(c, 0), []);
    assert.deepEqual(await entries(c, 40), []);
  });

  it("IPv4 entries come in the hash's order (the bucket of hash_uword of the address's u32), a replaced MAC keeps its place", async () => {
    const { c } = await start();
    await bd(c, 10);
    const ips = ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4', '192.168.1.1', '172.16.0.9'];
    for (const ip of ips) assert.equal(await ipMac(c, 10, ip, '02:00:00:00:00:01'), 0);
    const key = (ip: string) => Buffer.from(ip.split('.').map(Number)).readUInt32LE(0);
    const expected = [...ips].sort((a, b) => (hashUwordLow(key(a)) & 63) - (hashUwordLow(key(b)) & 63));
    assert.notDeepEqual(expected, ips);
    assert.deepEqual(
      (await entries(c)).map((e) => e[1]),
      expected,
    );
    await ipMac(c, 10, expected[0] as string, '02:00:00:00:00:02');
    const after = await entries(c);
    assert.deepEqual(
      after.map((e) => e[1]),
      expected,
    );
    assert.equal(after[0]?.[2], '02:00:00:00:00:02');
  });

  it('deleting the bridge domain frees its tables: created again, it is empty', async () => {
    const { c } = await start();
    await bd(c, 10);
    await ipMac(c, 10, '10.0.0.1', '02:00:00:00:00:01');
    await ipMac(c, 10, '2001:db8::1', '02:00:00:00:00:01');
    assert.equal(await bd(c, 10, false), 0);
    assert.deepEqual(await entries(c), []);
    assert.equal(await ipMac(c, 10, '10.0.0.1', '02:00:00:00:00:01', false), Rv.NO_SUCH_ENTRY);
    assert.equal(await bd(c, 10), 0);
    assert.deepEqual(await entries(c), []);
    assert.equal(await ipMac(c, 10, '10.0.0.1', '02:00:00:00:00:01', false), Rv.UNSPECIFIED);
  });
});
