/**
 * vlib error counters and `show errors` / `clear errors` (src/vlib/error.c in VPP 26.06), as the
 * simulator's uRPF and ACL models count them.
 *
 * The format, derived from show_errors and vppinfra's justify (format.c): a header
 * "%=10s%=35s%=35s%=10s" and one "%10lu%=35v%=35s%=10s" line per non-zero counter since the last
 * clear, each ended with "\n" by vlib_cli_output; "%=" centres with the odd space on the left,
 * "%10lu" right-aligns. Three strict IPv4 uRPF drops, one loose IPv6 TX drop and, on an input ACL,
 * two denies and a permit give this on VPP 26.06 (one thread; `|` marks the ends of the lines;
 * seen on a v26.06 build fed by the packet generator, where the permitted packet added a line of
 * its own further on, "ip4-local / ip4 source lookup miss"):
 *
 *   |   Count                  Node                              Reason               Severity |
 *   |         1         ip6-tx-urpf-loose                      uRPF Drop                error  |
 *   |         3         ip4-rx-urpf-strict                     uRPF Drop                error  |
 *   |         2        acl-plugin-in-ip4-fa                 ACL deny packets            error  |
 *   |         1        acl-plugin-in-ip4-fa                ACL permit packets           error  |
 *   |         3        acl-plugin-in-ip4-fa                 checked packets             error  |
 *
 * The line order is node-index order (urpf's nodes before acl's: see error-counters.ts), then
 * error-code order within a node. The `clear errors` / header test also runs against a real VPP
 * (VPP_API_SOCKET); the counting tests need the simulator's verdict models.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MessageDef, MessageInput } from '../codec/schema.js';
import { msg } from '../messages/index.js';
import { RawClient } from '../../../test/support/raw-client.js';
import { rawSessions } from '../../../test/support/raw-session.js';
import { SIM_ONLY } from '../../../test/support/vpp-target.js';
import { ACL_FA_ERROR, ErrorCounters, justify, URPF_ERROR } from './error-counters.js';
import type { VppSimulator } from './simulator.js';

const HEADER = '   Count                  Node                              Reason               Severity \n';
const IP6_TX_LOOSE_1 =
  '         1         ip6-tx-urpf-loose                      uRPF Drop                error  \n';
const IP4_RX_STRICT_3 =
  '         3         ip4-rx-urpf-strict                     uRPF Drop                error  \n';
const ACL_DENY_2 =
  '         2        acl-plugin-in-ip4-fa                 ACL deny packets            error  \n';
const ACL_PERMIT_1 =
  '         1        acl-plugin-in-ip4-fa                ACL permit packets           error  \n';
const ACL_CHECKED_3 =
  '         3        acl-plugin-in-ip4-fa                 checked packets             error  \n';

describe('ErrorCounters', () => {
  it('justify: "%=" puts the odd space left, "%N" right-aligns, both cut what is too long', () => {
    assert.equal(justify('Count', 10, '='), '   Count  ');
    assert.equal(justify('Severity', 10, '='), ' Severity ');
    assert.equal(justify('ab', 6, '='), '  ab  ');
    assert.equal(justify('7', 4, '+'), '   7');
    assert.equal(justify('7', 4, '-'), '7   ');
    assert.equal(justify('12345678901', 10, '+'), '1234567890');
    assert.equal(justify('x'.repeat(40), 35, '='), 'x'.repeat(35));
  });

  it('show: the header only, then lines in node-index and code order; counts add up', () => {
    const e = new ErrorCounters();
    assert.equal(e.show(), HEADER);
    e.count('acl-plugin-in-ip4-fa', ACL_FA_ERROR.ACL_CHECK, 3);
    e.count('ip4-rx-urpf-strict', URPF_ERROR.DROP);
    e.count('acl-plugin-in-ip4-fa', ACL_FA_ERROR.ACL_PERMIT);
    e.count('ip4-rx-urpf-strict', URPF_ERROR.DROP, 2);
    e.count('acl-plugin-in-ip4-fa', ACL_FA_ERROR.ACL_DROP);
    e.count('ip6-tx-urpf-loose', URPF_ERROR.DROP);
    e.count('acl-plugin-in-ip4-fa', ACL_FA_ERROR.ACL_DROP);
    assert.equal(
      e.show(),
      HEADER + IP6_TX_LOOSE_1 + IP4_RX_STRICT_3 + ACL_DENY_2 + ACL_PERMIT_1 + ACL_CHECKED_3,
    );
  });

  it('clear: show counts from the clear on, the totals keep counting; zero lines disappear', () => {
    const e = new ErrorCounters();
    e.count('ip4-rx-urpf-strict', URPF_ERROR.DROP, 5);
    e.count('acl-plugin-in-ip4-fa', ACL_FA_ERROR.ACL_DROP, 4);
    e.clear();
    assert.equal(e.show(), HEADER);
    e.count('ip4-rx-urpf-strict', URPF_ERROR.DROP, 3);
    assert.equal(e.show(), HEADER + IP4_RX_STRICT_3);
    assert.deepEqual(
      e.snapshot().map((c) => [c.node, c.reason, c.count, c.total]),
      [
        ['ip4-rx-urpf-strict', 'uRPF Drop', 3, 8],
        ['acl-plugin-in-ip4-fa', 'ACL deny packets', 0, 4],
      ],
    );
  });

  it('a count wider than 10 digits is cut, as justify cuts "%10lu"', () => {
    const e = new ErrorCounters();
    e.count('ip4-rx-urpf-loose', URPF_ERROR.DROP, 12345678901);
    assert.equal(
      e.show(),
      `${HEADER}1234567890         ip4-rx-urpf-loose                      uRPF Drop                error  \n`,
    );
  });

  it('refuses a node or reason VPP does not register', () => {
    const e = new ErrorCounters();
    assert.throws(() => e.count('ip4-rx-urpf-strict', 'ACL deny packets'), /no error counter/);
    assert.throws(() => e.count('ip4-urpf-strict', URPF_ERROR.DROP), /no error counter/);
  });
});

// ---------------------------------------------------------------------------------------------
// Through the API

const { start, call, loopback } = rawSessions('error-counters-test');

async function cli(c: RawClient, cmd: string): Promise<{ retval: number; reply: string }> {
  const r = await call(c, msg.cli_inband, { cmd });
  return { retval: r.retval as number, reply: r.reply as string };
}

async function ok<M extends MessageDef>(c: RawClient, def: M, input: MessageInput<M>): Promise<void> {
  assert.equal((await call(c, def, input)).retval, 0, def.name);
}

async function addr(c: RawClient, sw: number, text: string): Promise<void> {
  const [ip, len] = text.split('/') as [string, string];
  const a = ip.includes(':') ? { af: 1, un: { ip6: ip } } : { af: 0, un: { ip4: ip } };
  await ok(c, msg.sw_interface_add_del_address, {
    sw_if_index: sw,
    is_add: true,
    del_all: false,
    prefix: { address: a, len: Number(len) },
  });
}

describe('show errors / clear errors (cli_inband)', () => {
  it('clear errors answers nothing; show errors starts with the header', async () => {
    const { c } = await start();
    assert.deepEqual(await cli(c, 'clear errors'), { retval: 0, reply: '' });
    const s = await cli(c, 'show errors');
    assert.equal(s.retval, 0);
    assert.ok(s.reply.startsWith(HEADER), JSON.stringify(s.reply));
  });

  it(
    'uRPF drops and ACL verdicts show on their nodes; clear errors; abbreviations and what follows',
    { skip: SIM_ONLY },
    async () => {
      const { t, c } = await start();
      const sim = t.sim as VppSimulator;
      assert.deepEqual(await cli(c, 'show errors'), { retval: 0, reply: HEADER });
      const a = await loopback(c);
      const b = await loopback(c);
      await ok(c, msg.sw_interface_set_flags, { sw_if_index: a, flags: 1 });
      await addr(c, a, '10.81.1.1/24');
      await addr(c, a, '2001:db8:81::1/64');
      const urpf = (sw: number, mode: number, af: number, isInput: boolean) =>
        ok(c, msg.urpf_update_v2, { sw_if_index: sw, mode, af, is_input: isInput, table_id: 0xffffffff });
      await urpf(a, 2, 0, true); // strict, IPv4, RX
      await urpf(b, 1, 1, false); // loose, IPv6, TX
      for (let i = 0; i < 3; i++)
        assert.equal(sim.urpfVerdict({ swIfIndex: a, af: 4, src: '192.0.2.9', dst: '10.81.1.1' }), 'drop');
      assert.equal(sim.urpfVerdict({ swIfIndex: a, af: 4, src: '10.81.1.9', dst: '10.81.1.1' }), 'pass');
      assert.equal(
        sim.urpfVerdict({
          swIfIndex: b,
          af: 6,
          src: '2001:db8:ff::1',
          dst: '2001:db8:81::9',
          isInput: false,
        }),
        'drop',
      );

      // one ACL: deny 192.0.2.0/24, permit 10.81.0.0/16, on A's input
      const rule = (isPermit: number, src: string, len: number) => ({
        is_permit: isPermit,
        src_prefix: { address: { af: 0, un: { ip4: src } }, len },
        dst_prefix: { address: { af: 0, un: { ip4: '0.0.0.0' } }, len: 0 },
        proto: 0,
        srcport_or_icmptype_first: 0,
        srcport_or_icmptype_last: 65535,
        dstport_or_icmpcode_first: 0,
        dstport_or_icmpcode_last: 65535,
      });
      const acl = await call(c, msg.acl_add_replace, {
        acl_index: 0xffffffff,
        tag: 'errors-test',
        r: [rule(0, '192.0.2.0', 24), rule(1, '10.81.0.0', 16)],
      });
      assert.equal(acl.retval, 0);
      await ok(c, msg.acl_interface_set_acl_list, {
        sw_if_index: a,
        n_input: 1,
        acls: [acl.acl_index as number],
      });
      const v = (src: string) => sim.aclVerdict({ swIfIndex: a, af: 4, src, dst: '10.81.1.1' });
      assert.equal(v('192.0.2.9'), 'deny');
      assert.equal(v('10.81.7.7'), 'permit');
      assert.equal(v('198.51.100.1'), 'deny'); // nothing matches: the implicit deny

      const all = HEADER + IP6_TX_LOOSE_1 + IP4_RX_STRICT_3 + ACL_DENY_2 + ACL_PERMIT_1 + ACL_CHECKED_3;
      assert.deepEqual(await cli(c, 'show errors'), { retval: 0, reply: all });
      // "show node counters" is the same command; "sh er" is unique, "show e" is not (event-logger)
      assert.deepEqual(await cli(c, 'show node counters'), { retval: 0, reply: all });
      assert.deepEqual(await cli(c, 'sh er'), { retval: 0, reply: all });
      assert.deepEqual(await cli(c, 'show e'), { retval: -1, reply: "show: unknown input `'\n" });
      assert.deepEqual(await cli(c, 'show e x'), { retval: -1, reply: "show: unknown input `e x'\n" });
      // what show_errors leaves unread is the next command
      assert.deepEqual(await cli(c, 'show errors bogus'), {
        retval: -1,
        reply: `${all}unknown input \`bogus'\n`,
      });

      assert.deepEqual(await cli(c, 'clear errors show errors'), { retval: 0, reply: HEADER });
      assert.equal(sim.urpfVerdict({ swIfIndex: a, af: 4, src: '192.0.2.9', dst: '10.81.1.1' }), 'drop');
      assert.deepEqual(await cli(c, 'show errors'), {
        retval: 0,
        reply: `${HEADER}         1         ip4-rx-urpf-strict                     uRPF Drop                error  \n`,
      });
      assert.deepEqual(await cli(c, 'clear e'), { retval: 0, reply: '' });
      assert.deepEqual(await cli(c, 'show errors'), { retval: 0, reply: HEADER });
      assert.deepEqual(
        sim.state.errors.map((e) => [e.node, e.reason, e.count, e.total]),
        [
          ['ip6-tx-urpf-loose', 'uRPF Drop', 0, 1],
          ['ip4-rx-urpf-strict', 'uRPF Drop', 0, 4],
          ['acl-plugin-in-ip4-fa', 'ACL deny packets', 0, 2],
          ['acl-plugin-in-ip4-fa', 'ACL permit packets', 0, 1],
          ['acl-plugin-in-ip4-fa', 'checked packets', 0, 3],
        ],
      );
      assert.deepEqual(await cli(c, 'clear bogus'), { retval: -1, reply: "clear: unknown input `bogus'\n" });
    },
  );

  it('a restarted VPP starts its counters at zero', { skip: SIM_ONLY }, async () => {
    const { t, c } = await start();
    const sim = t.sim as VppSimulator;
    const lo = await loopback(c);
    await ok(c, msg.urpf_update_v2, {
      sw_if_index: lo,
      mode: 1,
      af: 0,
      is_input: true,
      table_id: 0xffffffff,
    });
    assert.equal(sim.urpfVerdict({ swIfIndex: lo, af: 4, src: '192.0.2.1', dst: '192.0.2.2' }), 'drop');
    assert.equal(sim.state.errors.length, 1);
    await sim.restart();
    assert.deepEqual(sim.state.errors, []);
  });
});
