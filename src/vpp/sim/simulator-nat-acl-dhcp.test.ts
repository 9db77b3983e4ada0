/**
 * The simulator's NAT, ACL and DHCP messages against VPP's behaviour for bad operations (retvals
 * taken from VPP 26.06's handlers). Real Unix sockets, the raw test client.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeMessage } from '../codec/message-codec.js';
import { msg } from '../messages/index.js';
import { Rv } from './index.js';
import { prefix4, simSessions } from '../../../test/support/sim/sim-sessions.js';

const { start, call, rv } = simSessions();

describe('nat, acl, dhcp', () => {
  it('nat: disabled -126, twice enabled -170, mappings -81/-6; acl: replace, -6, in use -142', async () => {
    const { sim, c } = await start();
    const sm = (is_add: boolean, external_ip_address: string, vrf_id = 0) =>
      rv(c, msg.nat44_add_del_static_mapping_v2, {
        is_add,
        flags: 8,
        local_ip_address: '10.0.0.5',
        external_ip_address,
        external_sw_if_index: 0xffffffff,
        vrf_id,
        tag: 't',
      });
    assert.equal(await sm(true, '169.252.252.5'), Rv.UNSUPPORTED);
    assert.equal(await rv(c, msg.nat44_ed_plugin_enable_disable, { enable: true, sessions: 16384 }), 0);
    assert.equal(
      await rv(c, msg.nat44_ed_plugin_enable_disable, { enable: true, sessions: 16384 }),
      Rv.FEATURE_ALREADY_ENABLED,
    );
    assert.equal(await sm(true, '169.252.252.5'), 0);
    assert.equal(await sm(true, '169.252.252.5'), Rv.VALUE_EXIST);
    assert.equal(await sm(true, '169.252.252.6'), Rv.VALUE_EXIST); // same local address and VRF
    assert.equal(await sm(false, '169.252.252.9'), Rv.NO_SUCH_ENTRY);
    assert.equal(sim.state.nat.staticMappings.length, 1);

    const acl = await call(c, msg.acl_add_replace, {
      acl_index: 0xffffffff,
      tag: 'a',
      r: [
        {
          is_permit: 1,
          src_prefix: prefix4('0.0.0.0', 0),
          dst_prefix: prefix4('0.0.0.0', 0),
          srcport_or_icmptype_last: 65535,
          dstport_or_icmpcode_last: 65535,
        },
      ],
    });
    assert.deepEqual([acl.retval, acl.acl_index], [0, 0]);
    assert.equal(
      (await call(c, msg.acl_add_replace, { acl_index: 5, tag: 'b', r: [] })).retval,
      Rv.NO_SUCH_ENTRY,
    );
    assert.equal(
      (
        await call(c, msg.acl_add_replace, {
          acl_index: 0xffffffff,
          tag: 'c',
          r: [{ src_prefix: prefix4('10.0.0.1', 24), dst_prefix: prefix4('0.0.0.0', 0) }],
        })
      ).retval,
      Rv.INVALID_SRC_ADDRESS,
    );
    const lo = (await call(c, msg.create_loopback_instance, {})).sw_if_index as number;
    assert.equal(await rv(c, msg.acl_interface_set_acl_list, { sw_if_index: lo, n_input: 1, acls: [0] }), 0);
    assert.equal(await rv(c, msg.acl_del, { acl_index: 0 }), Rv.ACL_IN_USE_INBOUND);
    assert.equal(
      await rv(c, msg.acl_interface_set_acl_list, { sw_if_index: lo, n_input: 1, acls: [3] }),
      Rv.NO_SUCH_ENTRY,
    );

    assert.equal(
      await rv(c, msg.dhcp_proxy_config, {
        rx_vrf_id: 0,
        server_vrf_id: 0,
        is_add: true,
        dhcp_server: { af: 0, un: { ip4: '0.0.0.0' } },
        dhcp_src_address: { af: 0, un: { ip4: '10.0.0.1' } },
      }),
      Rv.INVALID_DST_ADDRESS,
    );
    assert.equal(
      await rv(c, msg.dhcp_proxy_set_vss, { tbl_id: 3, vss_type: 0, vpn_ascii_id: 'x', is_add: false }),
      Rv.NO_SUCH_ENTRY,
    );
  });

  it('nat44_ed_output_interface_get pages with -165 and a cursor', async () => {
    const { sim, c } = await start();
    await rv(c, msg.nat44_ed_plugin_enable_disable, { enable: true });
    const ifs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const sw = (await call(c, msg.create_loopback_instance, {})).sw_if_index as number;
      ifs.push(sw);
      await rv(c, msg.nat44_ed_add_del_output_interface, { is_add: true, sw_if_index: sw });
    }
    sim.setCursorPageLimit(2);
    const first = await c.call(msg.nat44_ed_output_interface_get, { cursor: 0 }, 70, 3);
    const reply = decodeMessage(msg.nat44_ed_output_interface_get_reply, first[2] as Buffer);
    assert.deepEqual([reply.retval, reply.cursor], [Rv.EAGAIN, 2]);
    const rest = await c.call(msg.nat44_ed_output_interface_get, { cursor: 2 }, 71, 2);
    const done = decodeMessage(msg.nat44_ed_output_interface_get_reply, rest[1] as Buffer);
    assert.deepEqual([done.retval, done.cursor], [0, 0xffffffff]);
    const got = [...first.slice(0, 2), rest[0]].map(
      (p) => decodeMessage(msg.nat44_ed_output_interface_details, p as Buffer).sw_if_index,
    );
    assert.deepEqual(got, ifs);
  });
});
