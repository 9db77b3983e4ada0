/**
 * The nat44-ei plugin driven and read over the raw test client, for the simulator's nat44-ei tests
 * (src/vpp/sim/nat44-ei-*.test.ts, which also run against a real VPP): whether a real VPP has it in
 * use, a session that starts with the plugin disabled and removes what it made, the calls that
 * build its messages, and views of its dumps and of the FIB it changes.
 */
import assert from 'node:assert/strict';
import { decodeMessage } from '../../../src/vpp/codec/message-codec.js';
import { msg } from '../../../src/vpp/messages/index.js';
import type { RawClient } from '../raw-client.js';
import { rawSessions, type Obj } from '../raw-session.js';
import { REAL_VPP_SOCKET } from '../vpp-target.js';
import { VppClient } from '../../../src/vpp/client/vpp-client.js';
import type { VppSimulator } from '../../../src/vpp/sim/index.js';

/**
 * On a real VPP the tests need NAT44-EI disabled to start with; vppnet's own services suites leave
 * it enabled (a shared global), so in a batch after them these tests say so and skip.
 */
async function enabledOnRealVpp(): Promise<string | false> {
  if (!REAL_VPP_SOCKET) return false;
  const client = new VppClient({
    socketPath: REAL_VPP_SOCKET,
    clientName: 'nat44-ei-probe',
    healthCheckIntervalMs: 0,
  });
  try {
    await client.connect();
    if (!client.supports(msg.nat44_ei_show_running_config)) return false;
    const r = await client.call(msg.nat44_ei_show_running_config, {});
    return r.sessions > 0
      ? 'NAT44-EI is enabled on this VPP (vppnet or someone else uses it); these tests need it off'
      : false;
  } finally {
    await client.close();
  }
}

export const IN_USE = await enabledOnRealVpp();

export const LEAVES_STATE =
  REAL_VPP_SOCKET && process.env.VPPNET_DISPOSABLE_VPP !== '1'
    ? 'leaves tables or routes in the real VPP for good (set VPPNET_DISPOSABLE_VPP=1 on a fresh VPP)'
    : false;

/** nat44_ei_config_flags */
export const STATIC_MAPPING_ONLY = 0x01;

export const OUT2IN_DPO = 0x04;

export const ADDR_ONLY = 0x08;

export const NONE = 0xffffffff;

/** "nat44-ei-low" in `show fib source` */
export const SRC_EI_LOW = 29;

export interface EnableOpts {
  inside_vrf?: number;
  outside_vrf?: number;
  users?: number;
  sessions?: number;
  user_sessions?: number;
  flags?: number;
}

export interface SmOpts {
  vrf?: number;
  tag?: string;
  flags?: number;
  proto?: number;
  lPort?: number;
  ePort?: number;
  sw?: number;
}

export interface Made {
  loops: number[];
  tables: number[];
}

/** Registers the file's afterEach (call it at the top level of a test file). */
export function nat44EiSessions() {
  const { start, call, rv, dump, loopback } = rawSessions('nat44-ei-test');

  const enable = (c: RawClient, o: EnableOpts = {}): Promise<number> =>
    rv(c, msg.nat44_ei_plugin_enable_disable, { enable: true, ...o });

  const disable = (c: RawClient): Promise<number> =>
    rv(c, msg.nat44_ei_plugin_enable_disable, { enable: false });

  async function runningConfig(c: RawClient): Promise<Obj> {
    return call(c, msg.nat44_ei_show_running_config, {});
  }

  const sm = (
    c: RawClient,
    isAdd: boolean,
    local: string,
    external: string,
    o: SmOpts = {},
  ): Promise<number> =>
    rv(c, msg.nat44_ei_add_del_static_mapping, {
      is_add: isAdd,
      flags: o.flags ?? ADDR_ONLY,
      local_ip_address: local,
      external_ip_address: external,
      protocol: o.proto ?? 0,
      local_port: o.lPort ?? 0,
      external_port: o.ePort ?? 0,
      external_sw_if_index: o.sw ?? NONE,
      vrf_id: o.vrf ?? 0,
      tag: o.tag ?? '',
    });

  const im = (
    c: RawClient,
    isAdd: boolean,
    addr: string,
    o: Omit<SmOpts, 'lPort' | 'ePort'> & { port?: number } = {},
  ) =>
    rv(c, msg.nat44_ei_add_del_identity_mapping, {
      is_add: isAdd,
      flags: o.flags ?? ADDR_ONLY,
      ip_address: addr,
      protocol: o.proto ?? 0,
      port: o.port ?? 0,
      sw_if_index: o.sw ?? NONE,
      vrf_id: o.vrf ?? 0,
      tag: o.tag ?? '',
    });

  const oif = (c: RawClient, isAdd: boolean, sw: number): Promise<number> =>
    rv(c, msg.nat44_ei_add_del_output_interface, { is_add: isAdd, sw_if_index: sw });

  const smDump = (c: RawClient): Promise<Obj[]> => dump(c, msg.nat44_ei_static_mapping_dump, {});

  const imDump = (c: RawClient): Promise<Obj[]> => dump(c, msg.nat44_ei_identity_mapping_dump, {});

  /** A static mapping detail (address-only unless a protocol is given). */
  function smRow(
    local: string,
    external: string,
    vrf: number,
    tag = '',
    o: { proto?: number; lPort?: number; ePort?: number; sw?: number } = {},
  ): Obj {
    const ports = o.proto !== undefined;
    return {
      flags: ports ? 0 : ADDR_ONLY,
      local_ip_address: local,
      external_ip_address: external,
      protocol: o.proto ?? 0,
      local_port: o.lPort ?? 0,
      external_port: o.ePort ?? 0,
      external_sw_if_index: o.sw ?? NONE,
      vrf_id: vrf,
      tag,
    };
  }

  /** An identity mapping detail: address-only ones say protocol 255 ("other"). */
  function imRow(
    addr: string,
    vrf: number,
    tag = '',
    o: { proto?: number; port?: number; sw?: number } = {},
  ): Obj {
    return {
      flags: o.proto !== undefined ? 0 : ADDR_ONLY,
      ip_address: addr,
      protocol: o.proto ?? 255,
      port: o.port ?? 0,
      sw_if_index: o.sw ?? NONE,
      vrf_id: vrf,
      tag,
    };
  }

  /**
   * nat44_ei_output_interface_get from `cursor`: retval, reply cursor, sw_if_indices. With no
   * interfaces VPP leaves the reply's cursor unset (REPLY_MACRO does not zero the message): it is
   * reported as 0 here, whatever the real VPP sent.
   */
  async function outputInterfaces(c: RawClient, cursor = 0): Promise<[number, number, number[]]> {
    const ps = await c.dump(msg.nat44_ei_output_interface_get, { cursor }, 0x4e1);
    const replyId = c.idOf(msg.nat44_ei_output_interface_get_reply);
    const reply = ps.find((p) => p.readUInt16BE(0) === replyId);
    assert.ok(reply);
    const r = decodeMessage(msg.nat44_ei_output_interface_get_reply, reply);
    if (r.retval === 0 && ps.length === 2) return [0, 0, []];
    const detailsId = c.idOf(msg.nat44_ei_output_interface_details);
    const sws = ps
      .filter((p) => p.readUInt16BE(0) === detailsId)
      .map((p) => decodeMessage(msg.nat44_ei_output_interface_details, p).sw_if_index);
    return [r.retval, r.cursor, sws];
  }

  /** IPv4 tables ip_table_dump lists, of those asked about: [id, name], by id (not fib index). */
  async function ip4Tables(c: RawClient, ...ids: number[]): Promise<[number, string][]> {
    return (await dump(c, msg.ip_table_dump, {}))
      .map((d) => d.table as { table_id: number; is_ip6: boolean; name: string })
      .filter((t) => !t.is_ip6 && ids.includes(t.table_id))
      .map((t): [number, string] => [t.table_id, t.name])
      .sort((a, b) => a[0] - b[0]);
  }

  const table = (c: RawClient, id: number, isAdd = true): Promise<number> =>
    rv(c, msg.ip_table_add_del, { is_add: isAdd, table: { table_id: id, is_ip6: false, name: '' } });

  /** The routes nat44-ei-low is the best source of, in a table: prefix and paths. */
  async function eiRoutes(c: RawClient, tableId: number): Promise<string[]> {
    const ds = await dump(c, msg.ip_route_v2_dump, { table: { table_id: tableId, is_ip6: false }, src: 0 });
    return ds
      .map(
        (d) =>
          d.route as {
            prefix: { address: { un: { ip4: string } }; len: number };
            src: number;
            paths: {
              sw_if_index: number;
              table_id: number;
              type: number;
              flags: number;
              proto: number;
              nh: { address: { ip4: string } };
            }[];
          },
      )
      .filter((r) => r.src === SRC_EI_LOW)
      .map(
        (r) =>
          `${r.prefix.address.un.ip4}/${r.prefix.len} ` +
          r.paths
            .map(
              (p) =>
                `[sw ${p.sw_if_index} table ${p.table_id} type ${p.type} flags ${p.flags} nh ${p.nh.address.ip4}]`,
            )
            .join(''),
      )
      .sort();
  }

  /** The receive /32 nat44-ei adds for `addr` on interface `sw` (FIB_API_PATH_TYPE_LOCAL). */
  const receive = (addr: string, sw: number, tableId = 0): string =>
    `${addr}/32 [sw ${sw} table ${tableId} type 1 flags 0 nh ${addr}]`;

  async function bind(c: RawClient, sw: number, tableId: number): Promise<void> {
    assert.equal(
      await rv(c, msg.sw_interface_set_table, { sw_if_index: sw, is_ipv6: false, vrf_id: tableId }),
      0,
    );
  }

  async function address(c: RawClient, sw: number, a: string, isAdd = true): Promise<void> {
    const [ip, len] = a.split('/');
    assert.equal(
      await rv(c, msg.sw_interface_add_del_address, {
        sw_if_index: sw,
        is_add: isAdd,
        del_all: false,
        prefix: { address: { af: 0, un: { ip4: ip as string } }, len: Number(len) },
      }),
      0,
    );
  }

  /**
   * Runs `body` with the plugin disabled at the start; afterwards disables it (which drops every
   * mapping, record and output interface) and deletes the loopbacks and API tables made.
   */
  async function session(
    body: (c: RawClient, made: Made, sim: VppSimulator | undefined) => Promise<void>,
  ): Promise<void> {
    const { t, c } = await start();
    const made: Made = { loops: [], tables: [] };
    const first = await disable(c);
    assert.ok(first === 0 || first === -168 || first === -169, 'the plugin is disabled to begin with');
    try {
      await body(c, made, t.sim);
    } finally {
      if (!c.isClosed) {
        // identity records one by one first: a disable would keep their tables locked for good
        for (const d of await imDump(c)) {
          if (d.sw_if_index !== NONE) continue;
          const o = { vrf: d.vrf_id as number, flags: d.flags as number, proto: d.protocol as number };
          await im(c, false, d.ip_address as string, { ...o, port: d.port as number });
        }
        await disable(c);
        for (const sw of made.loops) await rv(c, msg.delete_loopback, { sw_if_index: sw });
        for (const id of made.tables) await table(c, id, false);
      }
    }
  }

  async function newLoop(c: RawClient, made: Made): Promise<number> {
    const sw = await loopback(c);
    made.loops.push(sw);
    return sw;
  }

  async function newTable(c: RawClient, made: Made, id: number): Promise<void> {
    assert.equal(await table(c, id), 0);
    made.tables.push(id);
  }
  return {
    start,
    call,
    rv,
    dump,
    loopback,
    enable,
    disable,
    runningConfig,
    sm,
    im,
    oif,
    smDump,
    imDump,
    smRow,
    imRow,
    outputInterfaces,
    ip4Tables,
    table,
    eiRoutes,
    receive,
    bind,
    address,
    session,
    newLoop,
    newTable,
  };
}
