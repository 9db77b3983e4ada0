/**
 * The simulator's L2 FIB against VPP 26.06's l2_api.c (vl_api_l2fib_add_del_t_handler,
 * vl_api_l2_fib_table_dump_t_handler), l2_fib.c and l2_input.c: retvals, what is stored, the
 * BVI's own entry, what survives an interface leaving its bridge and a bridge domain being
 * deleted, and the dump order (the bihash's buckets: CRC-32C of the key).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { msg } from '../messages/index.js';
import type { RawClient } from '../../../test/support/raw-client.js';
import { rawSessions, type Obj } from '../../../test/support/raw-session.js';
import { SIM_ONLY } from '../../../test/support/vpp-target.js';
import { clibCrc32c } from './crc32c.js';
import { l2fibBucket, L2FIB_NUM_BUCKETS } from './l2-fib.js';
import { Rv } from './retval.js';

const NONE = 0xffffffff;
const { start, rv, dump, loopback } = rawSessions('l2-fib-test');

const bd = (c: RawClient, bdId: number, isAdd = true) =>
  rv(c, msg.bridge_domain_add_del, { bd_id: bdId, is_add: isAdd });
const join = (c: RawClient, sw: number, bdId: number, portType = 0, shg = 0) =>
  rv(c, msg.sw_interface_set_l2_bridge, {
    rx_sw_if_index: sw,
    bd_id: bdId,
    port_type: portType,
    shg,
    enable: true,
  });
const leave = (c: RawClient, sw: number) =>
  rv(c, msg.sw_interface_set_l2_bridge, { rx_sw_if_index: sw, enable: false });

function fib(
  c: RawClient,
  a: {
    mac: string;
    bdId: number;
    sw?: number;
    isAdd?: boolean;
    static?: boolean;
    filter?: boolean;
    bvi?: boolean;
  },
) {
  return rv(c, msg.l2fib_add_del, {
    mac: a.mac,
    bd_id: a.bdId,
    sw_if_index: a.sw ?? 0,
    is_add: a.isAdd ?? true,
    static_mac: a.static ?? false,
    filter_mac: a.filter ?? false,
    bvi_mac: a.bvi ?? false,
  });
}

/** [bd_id, mac, sw_if_index, flags (s static, f filter, b bvi)] */
async function table(c: RawClient, bdId = NONE): Promise<[number, string, number, string][]> {
  return (await dump(c, msg.l2_fib_table_dump, { bd_id: bdId })).map((d: Obj) => [
    d.bd_id as number,
    d.mac as string,
    d.sw_if_index as number,
    `${d.static_mac ? 's' : ''}${d.filter_mac ? 'f' : ''}${d.bvi_mac ? 'b' : ''}`,
  ]);
}

/** The bihash bucket, computed bit by bit (CRC-32C, reflected 0x82f63b78, init 0, no final xor). */
function bucketBitwise(mac: string, bdIndex: number): number {
  const key = [bdIndex & 0xff, bdIndex >> 8, ...mac.split(':').map((h) => parseInt(h, 16))];
  let crc = 0;
  for (const b of key) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return (crc >>> 0) & (L2FIB_NUM_BUCKETS - 1);
}

const macOf = (n: number) =>
  `02:00:${[(n >> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff].map((x) => x.toString(16).padStart(2, '0')).join(':')}`;

describe('L2 FIB hashing', () => {
  it("clib_crc32c is CRC-32C without the usual inversions (the check value of '123456789' once they are added)", () => {
    const data = Buffer.from('123456789');
    // standard CRC-32C = crc (init ~0) ^ ~0 = 0xe3069283; with init 0 and no xor it differs
    let crc = 0xffffffff;
    for (const b of data) {
      crc ^= b;
      for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
    }
    assert.equal((crc ^ 0xffffffff) >>> 0, 0xe3069283);
    assert.equal(clibCrc32c(Buffer.alloc(8)), 0);
    assert.equal(l2fibBucket(Buffer.from([2, 0, 0, 0, 0, 1]), 1), bucketBitwise('02:00:00:00:00:01', 1));
  });
});

describe('simulator: l2fib_add_del and l2_fib_table_dump', { skip: SIM_ONLY }, () => {
  it('retvals: -6 unknown bridge domain, -2 bad or unbridged interface, -6 deleting what is not there', async () => {
    const { c } = await start();
    const lo = await loopback(c);
    const other = await loopback(c);
    assert.equal(await bd(c, 10), 0);
    assert.equal(await bd(c, 20), 0);
    assert.equal(await fib(c, { mac: '02:00:00:00:00:01', bdId: 99, sw: lo }), Rv.NO_SUCH_ENTRY);
    assert.equal(await fib(c, { mac: '02:00:00:00:00:01', bdId: 99, isAdd: false }), Rv.NO_SUCH_ENTRY);
    assert.equal(await fib(c, { mac: '02:00:00:00:00:01', bdId: 10, sw: 77 }), Rv.INVALID_SW_IF_INDEX);
    assert.equal(await fib(c, { mac: '02:00:00:00:00:01', bdId: 10, sw: lo }), Rv.INVALID_SW_IF_INDEX); // L3
    assert.equal(await join(c, lo, 10), 0);
    assert.equal(await join(c, other, 20), 0);
    assert.equal(await fib(c, { mac: '02:00:00:00:00:01', bdId: 10, sw: lo, static: true }), 0);
    // in bridge mode is all that is checked: an interface of another bridge domain is accepted
    assert.equal(await fib(c, { mac: '02:00:00:00:00:02', bdId: 10, sw: other }), 0);
    // a filter entry does not look at the interface at all
    assert.equal(await fib(c, { mac: '02:00:00:00:00:03', bdId: 10, sw: 77, filter: true, bvi: true }), 0);
    // bd_id 0, the placeholder, exists
    assert.equal(await fib(c, { mac: '02:00:00:00:00:04', bdId: 0, filter: true }), 0);
    assert.deepEqual(
      (await table(c, 10)).sort((a, b) => a[1].localeCompare(b[1])),
      [
        [10, '02:00:00:00:00:01', lo, 's'],
        [10, '02:00:00:00:00:02', other, ''],
        [10, '02:00:00:00:00:03', NONE, 'sf'],
      ],
    );
    assert.deepEqual(await table(c, 0), [[0, '02:00:00:00:00:04', NONE, 'sf']]);
    assert.deepEqual(await table(c, 55), []);
    // delete: absent, or sw_if_index not 0 and not the entry's → -6; 0 deletes whatever it points at
    assert.equal(await fib(c, { mac: '02:00:00:00:00:09', bdId: 10, isAdd: false }), Rv.NO_SUCH_ENTRY);
    assert.equal(await fib(c, { mac: '02:00:00:00:00:01', bdId: 20, isAdd: false }), Rv.NO_SUCH_ENTRY);
    assert.equal(
      await fib(c, { mac: '02:00:00:00:00:01', bdId: 10, sw: other, isAdd: false }),
      Rv.NO_SUCH_ENTRY,
    );
    assert.equal(await fib(c, { mac: '02:00:00:00:00:01', bdId: 10, sw: lo, isAdd: false }), 0);
    assert.equal(await fib(c, { mac: '02:00:00:00:00:02', bdId: 10, isAdd: false }), 0);
    assert.equal(await fib(c, { mac: '02:00:00:00:00:03', bdId: 10, sw: NONE, isAdd: false }), 0);
    assert.deepEqual(await table(c, 10), []);
  });

  it('an add over an existing entry replaces its interface and flags', async () => {
    const { c } = await start();
    const a = await loopback(c);
    const b = await loopback(c);
    await bd(c, 10);
    await join(c, a, 10);
    await join(c, b, 10);
    assert.equal(await fib(c, { mac: '02:00:00:00:00:01', bdId: 10, sw: a, static: true, bvi: true }), 0);
    assert.equal(await fib(c, { mac: '02:00:00:00:00:01', bdId: 10, sw: b }), 0);
    assert.deepEqual(await table(c), [[10, '02:00:00:00:00:01', b, '']]);
  });

  it('a BVI adds its MAC as a static BVI entry and removes it when it leaves; a loopback BVI changing MAC moves it', async () => {
    const { c } = await start();
    const bvi = await loopback(c); // de:ad:00:00:00:00
    await bd(c, 10);
    await bd(c, 20);
    assert.equal(await join(c, bvi, 10, 1), 0);
    assert.deepEqual(await table(c), [[10, 'de:ad:00:00:00:00', bvi, 'sb']]);
    assert.equal(
      await rv(c, msg.sw_interface_set_mac_address, { sw_if_index: bvi, mac_address: '02:00:00:00:0b:01' }),
      0,
    );
    assert.deepEqual(await table(c), [[10, '02:00:00:00:0b:01', bvi, 'sb']]);
    // moving to another bridge domain as BVI: removed from the first, added to the second
    assert.equal(await join(c, bvi, 20, 1), 0);
    assert.deepEqual(await table(c), [[20, '02:00:00:00:0b:01', bvi, 'sb']]);
    // staying as a normal port: no entry
    assert.equal(await join(c, bvi, 20, 0), 0);
    assert.deepEqual(await table(c), []);
    assert.equal(await join(c, bvi, 20, 1), 0);
    assert.equal(await leave(c, bvi), 0);
    assert.deepEqual(await table(c), []);
    // deleting the interface while it is the BVI
    assert.equal(await join(c, bvi, 20, 1), 0);
    assert.equal(await rv(c, msg.delete_loopback, { sw_if_index: bvi }), 0);
    assert.deepEqual(await table(c), []);
  });

  it('provisioned entries are never flushed: they outlive their interface leaving, its deletion, and the bridge domain', async () => {
    const { c } = await start();
    const lo = await loopback(c);
    assert.equal(await bd(c, 10), 0); // bd_index 1
    assert.equal(await join(c, lo, 10), 0);
    assert.equal(await fib(c, { mac: '02:00:00:00:00:01', bdId: 10, sw: lo, static: true }), 0);
    assert.equal(await fib(c, { mac: '02:00:00:00:00:02', bdId: 10, sw: lo }), 0);
    assert.equal(await leave(c, lo), 0);
    assert.equal((await table(c, 10)).length, 2);
    assert.equal(await bd(c, 10, false), 0);
    // bd_delete sets the index's bd_id to ~0; its entries keep the index
    assert.deepEqual(
      (await table(c)).map((e) => e[0]),
      [NONE, NONE],
    );
    assert.deepEqual(await table(c, 10), []); // bd_id 10 is unknown now
    assert.equal(await rv(c, msg.delete_loopback, { sw_if_index: lo }), 0);
    // a new bridge domain takes bd_index 1 and with it the old entries
    assert.equal(await bd(c, 30), 0);
    assert.deepEqual(
      (await table(c, 30)).sort((a, b) => a[1].localeCompare(b[1])),
      [
        [30, '02:00:00:00:00:01', lo, 's'],
        [30, '02:00:00:00:00:02', lo, ''],
      ],
    );
  });

  it('dump order: buckets by CRC-32C of {bd_index, mac}, then slots; a freed slot is reused', async () => {
    const { c } = await start();
    await bd(c, 10); // bd_index 1
    const macs = [5, 1, 9, 3, 7, 2].map(macOf);
    for (const mac of macs) assert.equal(await fib(c, { mac, bdId: 10, filter: true }), 0);
    const expected = [...macs].sort((x, y) => bucketBitwise(x, 1) - bucketBitwise(y, 1));
    assert.notDeepEqual(expected, macs);
    assert.notDeepEqual(expected, [...macs].sort());
    assert.deepEqual(
      (await table(c)).map((e) => e[1]),
      expected,
    );
    // three MACs of one bucket (spread over 32 bits: CRC is linear, so neighbouring values never
    // share a bucket): x and y take slots 0 and 1; x deleted, z takes slot 0
    const seen = new Map<number, string[]>();
    let pair: [string, string, string] | undefined;
    for (let n = 1; !pair; n++) {
      const m = macOf(Math.imul(n, 0x9e3779b1) >>> 0);
      const b = bucketBitwise(m, 1);
      const list = [...(seen.get(b) ?? []), m];
      seen.set(b, list);
      if (list.length === 3) pair = list as [string, string, string];
    }
    const [x, y, z] = pair;
    for (const mac of macs) await fib(c, { mac, bdId: 10, isAdd: false });
    await fib(c, { mac: x, bdId: 10, filter: true });
    await fib(c, { mac: y, bdId: 10, filter: true });
    assert.deepEqual(
      (await table(c)).map((e) => e[1]),
      [x, y],
    );
    await fib(c, { mac: x, bdId: 10, isAdd: false });
    await fib(c, { mac: z, bdId: 10, filter: true });
    assert.deepEqual(
      (await table(c)).map((e) => e[1]),
      [z, y],
    );
  });
});
