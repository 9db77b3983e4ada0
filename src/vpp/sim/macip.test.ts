/**
 * The simulator's MACIP ACLs against VPP 26.06's acl.c (macip_acl_add_list, macip_acl_del_list,
 * macip_acl_interface_add_acl / _del_acl, the vl_api_macip_acl_* handlers): retvals, index
 * allocation, what the dump shows, and the per-interface vector macip_acl_interface_get returns.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeMessage, encodeMessage } from '../codec/message-codec.js';
import { FRAME_HEADER_LENGTH } from '../wire/frame.js';
import { msg } from '../messages/index.js';
import type { RawClient } from '../../../test/support/raw-client.js';
import { rawSessions } from '../../../test/support/raw-session.js';
import { SIM_ONLY } from '../../../test/support/vpp-target.js';
import { Rv } from './retval.js';

const NONE = 0xffffffff;
const { start, call, rv, dump, loopback } = rawSessions('macip-test');

interface Rule {
  action?: number;
  mac?: string;
  mask?: string;
  prefix?: string;
}

function apiRule(r: Rule) {
  const [ip, len] = (r.prefix ?? '0.0.0.0/0').split('/') as [string, string];
  return {
    is_permit: r.action ?? 1,
    src_mac: r.mac ?? '00:00:00:00:00:00',
    src_mac_mask: r.mask ?? '00:00:00:00:00:00',
    src_prefix: {
      address: ip.includes(':') ? { af: 1, un: { ip6: ip } } : { af: 0, un: { ip4: ip } },
      len: Number(len),
    },
  };
}

interface ApiRuleOut {
  is_permit: number;
  src_mac: string;
  src_mac_mask: string;
  src_prefix: { address: { af: number; un: { ip4: string; ip6: string } }; len: number };
}

const flat = (r: ApiRuleOut) => [
  r.is_permit,
  r.src_mac,
  r.src_mac_mask,
  r.src_prefix.address.af,
  r.src_prefix.address.af === 1 ? r.src_prefix.address.un.ip6 : r.src_prefix.address.un.ip4,
  r.src_prefix.len,
];

async function add(c: RawClient, index: number, rules: Rule[], tag = '') {
  const r = await call(c, msg.macip_acl_add_replace, { acl_index: index, tag, r: rules.map(apiRule) });
  return [r.retval, r.acl_index];
}

/** macip_acl_add_replace with a tag filling all 64 bytes (no NUL), which the codec refuses to encode. */
async function addFullTag(c: RawClient, index: number) {
  const def = msg.macip_acl_add_replace;
  const frame = encodeMessage(
    def,
    c.idOf(def),
    { acl_index: index, tag: 'x'.repeat(63), r: [] },
    {
      context: 0x64,
      clientIndex: c.clientIndex,
    },
  );
  // after the id (2), client_index (4), context (4) and acl_index (4): tag[63], the NUL
  frame[FRAME_HEADER_LENGTH + 14 + 63] = 0x78;
  const before = c.received.length;
  c.sendRaw(frame);
  const p = (await c.waitForCount(before + 1))[before] as Buffer;
  const r = decodeMessage(msg.macip_acl_add_replace_reply, p);
  return [r.retval, r.acl_index];
}

const bind = (c: RawClient, sw: number, acl: number, isAdd = true) =>
  rv(c, msg.macip_acl_interface_add_del, { is_add: isAdd, sw_if_index: sw, acl_index: acl });

async function bindings(c: RawClient): Promise<number[]> {
  const r = await call(c, msg.macip_acl_interface_get, {});
  assert.equal(r.count, (r.acls as number[]).length);
  return r.acls as number[];
}

describe('simulator: MACIP ACLs (macip_acl_*)', { skip: SIM_ONLY }, () => {
  it('add_replace: new indices from 0, -7 for a 64-byte tag, -6 replacing a missing index, replace in place', async () => {
    const { c } = await start();
    assert.deepEqual(await add(c, NONE, [{ prefix: '10.0.0.0/8' }], 'first'), [0, 0]);
    assert.deepEqual(await add(c, NONE, []), [0, 1]); // no rules: allowed (a warning in VPP)
    assert.deepEqual(await addFullTag(c, NONE), [Rv.INVALID_VALUE, NONE]);
    assert.deepEqual(await add(c, 7, [{ prefix: '10.0.0.0/8' }]), [Rv.NO_SUCH_ENTRY, 7]);
    assert.deepEqual(await addFullTag(c, 1), [Rv.INVALID_VALUE, 1]);
    assert.deepEqual(await add(c, NONE, [], 'y'.repeat(63)), [0, 2]); // 63 and the NUL fit
    assert.equal(await rv(c, msg.macip_acl_del, { acl_index: 2 }), 0);
    // nothing was created by the failures
    assert.deepEqual(
      (await dump(c, msg.macip_acl_dump, { acl_index: NONE })).map((d) => [d.acl_index, d.tag, d.count]),
      [
        [0, 'first', 1],
        [1, '', 0],
      ],
    );
    assert.deepEqual(await add(c, 0, [{ prefix: '10.0.0.0/8' }, { prefix: '::/0' }], 'second'), [0, 0]);
    const [d] = await dump(c, msg.macip_acl_dump, { acl_index: 0 });
    assert.deepEqual([d?.tag, d?.count], ['second', 2]);
  });

  it('dump: rules as stored (host bits and unmasked MACs kept, lengths unchecked), ~0 all, a missing index nothing', async () => {
    const { c } = await start();
    const rules: Rule[] = [
      { action: 0, mac: '02:aa:bb:cc:dd:ee', mask: 'ff:ff:ff:00:00:00', prefix: '10.1.2.3/16' },
      { action: 3, mac: '02:00:00:00:00:01', mask: 'ff:ff:ff:ff:ff:ff', prefix: '2001:db8::1/64' },
      { action: 1, prefix: '192.0.2.1/40' },
    ];
    assert.deepEqual(await add(c, NONE, rules, 'stored'), [0, 0]);
    const [d] = await dump(c, msg.macip_acl_dump, { acl_index: 0 });
    assert.deepEqual([d?.acl_index, d?.tag, d?.count], [0, 'stored', 3]);
    assert.deepEqual((d?.r as ApiRuleOut[]).map(flat), [
      [0, '02:aa:bb:cc:dd:ee', 'ff:ff:ff:00:00:00', 0, '10.1.2.3', 16],
      [3, '02:00:00:00:00:01', 'ff:ff:ff:ff:ff:ff', 1, '2001:db8::1', 64],
      [1, '00:00:00:00:00:00', '00:00:00:00:00:00', 0, '192.0.2.1', 40],
    ]);
    assert.deepEqual(await dump(c, msg.macip_acl_dump, { acl_index: 5 }), []);
  });

  it('del: -6 when absent; a freed index is the next one given (LIFO pool)', async () => {
    const { c } = await start();
    for (let i = 0; i < 3; i++) await add(c, NONE, [{ prefix: '10.0.0.0/8' }]);
    assert.equal(await rv(c, msg.macip_acl_del, { acl_index: 9 }), Rv.NO_SUCH_ENTRY);
    assert.equal(await rv(c, msg.macip_acl_del, { acl_index: 0 }), 0);
    assert.equal(await rv(c, msg.macip_acl_del, { acl_index: 2 }), 0);
    assert.equal(await rv(c, msg.macip_acl_del, { acl_index: 2 }), Rv.NO_SUCH_ENTRY);
    assert.deepEqual(await add(c, NONE, []), [0, 2]);
    assert.deepEqual(await add(c, NONE, []), [0, 0]);
    assert.deepEqual(await add(c, NONE, []), [0, 3]);
  });

  it('interface_add_del: -2 bad interface, -6 missing ACL, adding replaces, delete ignores acl_index, -6 without one', async () => {
    const { c } = await start();
    const lo1 = await loopback(c);
    const lo2 = await loopback(c);
    assert.deepEqual([lo1, lo2], [1, 2]);
    await add(c, NONE, [{ prefix: '10.0.0.0/8' }]);
    await add(c, NONE, [{ prefix: '10.0.0.0/8' }]);
    assert.deepEqual(await bindings(c), []);
    assert.equal(await bind(c, 99, 0), Rv.INVALID_SW_IF_INDEX);
    assert.equal(await bind(c, 99, 0, false), Rv.INVALID_SW_IF_INDEX);
    assert.equal(await bind(c, lo2, 5), Rv.NO_SUCH_ENTRY);
    assert.deepEqual(await bindings(c), []); // a failed add does not grow the vector
    assert.equal(await bind(c, lo1, 0, false), Rv.NO_SUCH_ENTRY); // nothing bound, vector empty
    assert.equal(await bind(c, lo2, 0), 0);
    assert.deepEqual(await bindings(c), [NONE, NONE, 0]);
    assert.equal(await bind(c, lo1, 0, false), Rv.NO_SUCH_ENTRY); // within the vector, ~0
    assert.equal(await bind(c, lo2, 1), 0); // one per interface: replaces
    assert.deepEqual(await bindings(c), [NONE, NONE, 1]);
    assert.equal(await bind(c, lo2, 0, false), 0); // names another ACL: removes what is there
    assert.deepEqual(await bindings(c), [NONE, NONE, NONE]);
    assert.equal(await bind(c, lo2, 1), 0);
    assert.equal(await bind(c, lo2, 12345, false), 0); // an ACL that does not exist, likewise
    assert.equal(await bind(c, lo2, 1, false), Rv.NO_SUCH_ENTRY);
    assert.equal(await bind(c, 0, 1), 0); // any interface, local0 included
    assert.deepEqual(await bindings(c), [1, NONE, NONE]);
  });

  it('deleting an ACL removes it from its interfaces; deleting an interface drops its binding, the vector keeps its length', async () => {
    const { c } = await start();
    const lo1 = await loopback(c);
    const lo2 = await loopback(c);
    const lo3 = await loopback(c);
    await add(c, NONE, [{ prefix: '10.0.0.0/8' }]);
    await add(c, NONE, [{ prefix: '10.0.0.0/8' }]);
    assert.equal(await bind(c, lo1, 0), 0);
    assert.equal(await bind(c, lo2, 1), 0);
    assert.equal(await bind(c, lo3, 0), 0);
    assert.deepEqual(await bindings(c), [NONE, 0, 1, 0]);
    assert.equal(await rv(c, msg.macip_acl_del, { acl_index: 0 }), 0);
    assert.deepEqual(await bindings(c), [NONE, NONE, 1, NONE]);
    assert.equal(await rv(c, msg.delete_loopback, { sw_if_index: lo2 }), 0);
    assert.deepEqual(await bindings(c), [NONE, NONE, NONE, NONE]);
    // the ACL itself stays; the reused sw_if_index starts without a binding
    assert.equal((await dump(c, msg.macip_acl_dump, { acl_index: 1 })).length, 1);
    assert.equal(await loopback(c), lo2);
    assert.deepEqual(await bindings(c), [NONE, NONE, NONE, NONE]);
  });
});
