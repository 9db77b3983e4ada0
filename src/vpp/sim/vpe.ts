/**
 * The API's own housekeeping and the vpe messages: the socket handshake (sockclnt_create,
 * sockclnt_delete), control_ping, memclnt_keepalive, get_api_json, show_version and cli_inband
 * (src/vlibmemory/socket_api.c, memclnt_api.c, memory_api.c, vlib_api.c, src/vpp/api/api.c,
 * src/vpp/app/version.c in VPP 26.06; the SR encaps commands from src/vnet/srv6/sr_policy_rewrite.c;
 * show/clear errors from src/vlib/error.c, printed by error-counters.ts).
 */
import { encodeMessage } from '../codec/message-codec.js';
import type { MessageDef } from '../codec/schema.js';
import { definitions, msg } from '../messages/index.js';
import type { Dispatcher } from './dispatcher.js';
import { ipText } from './ip-addr.js';
import type { Vpp } from './vpp.js';

export class Vpe {
  readonly #vpp: Vpp;

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
  }

  register(d: Dispatcher): void {
    const o = this.#vpp.options;

    d.on(msg.sockclnt_create, (m, call) => {
      // vl_api_sockclnt_create_t_handler: answers the connection it came in on (current_rp),
      // client_index 0, index = this registration's handle, then the whole message table.
      const reg = call.conn.registration;
      if (!reg) return;
      reg.name = m.name;
      const table = d.table.entries();
      const id = d.table.idOf(msg.sockclnt_create_reply);
      if (id === undefined) return;
      const frame = encodeMessage(
        msg.sockclnt_create_reply,
        id,
        {
          response: 0,
          index: reg.handle,
          message_table: table.map((e) => ({ index: e.id, name: e.nameCrc.slice(0, 63) })),
        },
        { context: call.context, clientIndex: 0 },
      );
      reg.conn.push(frame);
    });

    d.on(msg.sockclnt_delete, (m, call) => {
      // vl_api_sockclnt_delete_t_handler: response 1, then the requester's socket is closed and
      // the registration `index` freed; an unknown index answers -1 and closes nothing.
      const reg = call.reg;
      if (!reg) return;
      const index = m.index & 0x7fffffff;
      const target = this.#vpp.server.registrationAt(index);
      if (target) {
        call.reply({ response: 1 });
        reg.conn.end();
        this.#vpp.server.freeRegistration(index);
      } else {
        call.reply({ response: -1 });
      }
    });

    d.on(msg.control_ping, (_m, call) => {
      call.reply({ retval: 0, vpe_pid: o.pid });
    });

    // memclnt_keepalive from a client: VPP's handler sends the reply to its own shared-memory
    // input queue (memory_api.c), so a socket client never hears back. Nothing to do.
    d.on(msg.memclnt_keepalive, () => undefined);

    d.on(msg.get_api_json, (_m, call) => {
      if (!call.reg) return;
      call.reply({ retval: 0, json: apiJson() });
    });

    d.on(msg.show_version, (_m, call) => {
      call.reply({
        retval: 0,
        program: 'vpe',
        version: o.version.slice(0, 31),
        build_date: o.buildDate.slice(0, 31),
        build_directory: o.buildDirectory.slice(0, 255),
      });
    });

    d.on(msg.cli_inband, (m, call) => {
      const r = this.cli(m.cmd);
      call.reply({ retval: r.rv, reply: r.out });
    });
  }

  /** vlib_cli_input for the few commands the simulator knows. */
  cli(cmd: string): { rv: number; out: string } {
    const o = this.#vpp.options;
    const words = cmd
      .trim()
      .split(/\s+/)
      .filter((w) => w.length > 0);
    const unknown = (parent: string | undefined, rest: string): { rv: number; out: string } => {
      // clib_error_return (0, "[%v: ]unknown input `%U'") → rv -1 (error code 0)
      let shown = rest.length > 30 ? `${rest.slice(0, 30)}...` : rest.replace(/\s+$/, '');
      shown = shown.replace(/\r/g, '\\r').replace(/\n/g, '\\n').replace(/\t/g, '\\t');
      return { rv: -1, out: `${parent ? `${parent}: ` : ''}unknown input \`${shown}'\n` };
    };
    if (words.length === 0) return { rv: 0, out: '' };
    // vlib_cli_input dispatches what a command left unread as the next command (`clear errors
    // show errors` clears, then shows); an error ends the loop.
    const then = (out: string, rest: readonly string[]): { rv: number; out: string } => {
      if (rest.length === 0) return { rv: 0, out };
      const r = this.cli(rest.join(' '));
      return { rv: r.rv, out: out + r.out };
    };
    // error.c: "clear errors" / "clear node counters" (clear_error_counters, no output). Only
    // the full "clear": what top-level words "cl"/"cle" would be unique among is not modelled.
    if (words[0] === 'clear') {
      const [w1, w2] = [words[1] ?? '', words[2] ?? ''];
      const n = errorsCommand(w1, w2, 1);
      if (n === 0) return unknown('clear', words.slice(1).join(' '));
      this.#vpp.errors.clear();
      return then('', words.slice(1 + n));
    }
    // acl.c acl_set_aclplugin_fn, of which only "session timeout udp idle <u32>" is modelled:
    // checked on a real VPP 26.06 (no output; "x" for the number → the error below; words after
    // the number run as the next command).
    if (words[0] === 'set' && words[1] === 'acl-plugin') {
      const head = ['session', 'timeout', 'udp', 'idle'];
      if (!head.every((w, i) => words[2 + i] === w))
        return unknown('set acl-plugin', words.slice(2).join(' '));
      const n = words[6] ?? '';
      if (!/^\d+$/.test(n) || Number(n) > 0xffffffff)
        return { rv: -1, out: `set acl-plugin: expecting timeout value in seconds, got \`${n}\`\n` };
      this.#vpp.acl.udpIdleSeconds = Number(n);
      return then('', words.slice(7));
    }
    if (!'show'.startsWith(words[0] as string) || (words[0] as string).length < 2)
      return unknown(undefined, cmd.trimStart());
    const sub = words.slice(1).join(' ');
    const nErr = errorsCommand(words[1] ?? '', words[2] ?? '', 2);
    if (nErr > 0) {
      // show_errors reads "verbose [N]" and leaves anything else unread
      const rest = words.slice(1 + nErr);
      if (rest[0] === 'verbose')
        return { rv: -1, out: 'show errors verbose: not modelled by the simulator (error heap indices)\n' };
      return then(this.#vpp.errors.show(), rest);
    }
    // "show e" is ambiguous (errors, event-logger). The matcher read up to the end of the input,
    // and unformat_user does not rewind an input left at UNFORMAT_END_OF_INPUT, so nothing is
    // left to quote; followed by more words it rewinds and quotes them all.
    if (words[1] === 'e' && words.length === 2) return unknown('show', '');
    if (/^ver(s(i(on?)?)?)?$/.test(words[1] ?? '')) {
      return {
        rv: 0,
        out: `vpp v${o.version} built by ${o.buildUser} on ${o.buildHost} at ${o.buildDate}\n`,
      };
    }
    if (/^int(e(r(f(a(ce?)?)?)?)?)?$/.test(words[1] ?? '')) {
      if (words[2] === 'features' && words[3] !== undefined) return this.#showIntFeatures(words[3]);
      if (words[2] && 'address'.startsWith(words[2])) return { rv: 0, out: this.#showIntAddr() };
      return { rv: 0, out: this.#showInt() };
    }
    if (words[1] && 'bridge-domain'.startsWith(words[1]) && words[1].length >= 2)
      return { rv: 0, out: this.#showBd() };
    // sr_policy_rewrite.c: show_sr_encaps_{hop_limit,source}_command_fn, one vlib_cli_output each
    // (which ends the line with "\n"). Only the full spelling: the one vppnet sends.
    if (sub === 'sr encaps hop-limit')
      return { rv: 0, out: `SR encaps hop-limit = ${this.#vpp.sr.hopLimit}\n` };
    if (sub === 'sr encaps source addr')
      return { rv: 0, out: `SR encaps source addr = ${ipText(this.#vpp.sr.encapSource)}\n` };
    return unknown('show', sub);
  }

  /**
   * `show interface features IF` (vnet/feature/feature.c show_feature_command): "Feature paths
   * configured on IF..." then, per feature arc, the arc's name and its enabled nodes in order.
   * Only the arcs the simulator models are printed, ip6-unicast before ip4-unicast as VPP lists
   * them: their uRPF input node while its check runs, and "ipN-not-enabled" while the interface
   * has no address of that family (ip6: IPv6 not enabled) — the simulator's approximation.
   */
  #showIntFeatures(name: string): { rv: number; out: string } {
    const sw = [...this.#vpp.interfaces.pool.values()].find((i) => i.name === name);
    if (!sw) return { rv: -1, out: `show interface features: unknown input \`${name}'\n` };
    const arc = (af: 4 | 6): string[] => {
      const nodes = this.#vpp.urpf
        .entries()
        .filter((e) => e.swIfIndex === sw.swIfIndex && e.af === af && e.isInput && e.checking)
        .map((e) => `ip${af}-rx-urpf-${e.mode}`);
      if (!this.#vpp.ip.familyEnabled(sw.swIfIndex, af)) nodes.push(`ip${af}-not-enabled`);
      return [
        `ip${af}-unicast:`,
        ...(nodes.length > 0 ? nodes.map((n) => `  ${n}`) : ['  none configured']),
        '',
      ];
    };
    return { rv: 0, out: [`Feature paths configured on ${name}...`, '', ...arc(6), ...arc(4)].join('\n') };
  }

  #showInt(): string {
    // format_vnet_sw_interface header and rows (counters omitted: the simulator forwards nothing)
    const rows = [
      `${'Name'.padEnd(27)}${'Idx'.padStart(5)}    ${'State'.padEnd(5)}  MTU (L3/IP4/IP6/MPLS)     Counter          Count     `,
    ];
    for (const sw of this.#vpp.interfaces.pool.values()) {
      const mtu = `${sw.mtu[0]}/${sw.mtu[1]}/${sw.mtu[2]}/${sw.mtu[3]}`;
      rows.push(
        `${sw.name.padEnd(27)}${String(sw.swIfIndex).padStart(5)}    ${(sw.adminUp ? 'up' : 'down').padEnd(5)}  ${mtu.padEnd(26)}`,
      );
    }
    return `${rows.join('\n')}\n`;
  }

  #showIntAddr(): string {
    const out: string[] = [];
    for (const sw of this.#vpp.interfaces.pool.values()) {
      out.push(`${sw.name} (${sw.adminUp ? 'up' : 'dn'}):`);
      const l2 = this.#vpp.l2.portOf(sw.swIfIndex);
      if (l2)
        out.push(
          `  L2 bridge bd-id ${l2.bdId} idx ${l2.bdId} shg ${l2.shg} ${l2.bvi ? 'bvi' : ''}`.trimEnd(),
        );
      for (const af of [4, 6] as const) {
        for (const a of this.#vpp.ip.addressesOf(sw.swIfIndex, af)) {
          const t = this.#vpp.fib.byIndex(af, a.fibIndex);
          out.push(
            `  L3 ${ipText(a.addr)}/${a.len}${t && t.tableId !== 0 ? ` ip${af} table-id ${t.tableId} fib-idx ${t.index}` : ''}`,
          );
        }
      }
    }
    return `${out.join('\n')}\n`;
  }

  #showBd(): string {
    const bds = this.#vpp.l2.bridges();
    if (bds.length === 0) return 'No operational bridge-domains\n';
    const rows = [
      '  BD-ID   Index   BSN  Age(min)  Learning  U-Forwrd   UU-Flood   Flooding  ARP-Term  arp-ufwd Learn-co Learn-li   BVI-Intf ',
    ];
    for (const bd of bds) {
      const bvi =
        bd.bviSwIfIndex === 0xffffffff ? 'N/A' : (this.#vpp.interfaces.get(bd.bviSwIfIndex)?.name ?? 'N/A');
      const on = (b: boolean): string => (b ? 'on' : 'off');
      rows.push(
        `${String(bd.bdId).padStart(7)}${String(bd.index).padStart(8)}${'0'.padStart(6)}${(bd.macAge ? String(bd.macAge) : 'off').padStart(10)}${on(bd.learn).padStart(10)}${on(bd.forward).padStart(10)}${(bd.uuFlood ? 'flood' : 'drop').padStart(11)}${on(bd.flood).padStart(11)}${on(bd.arpTerm).padStart(10)}${on(bd.arpUfwd).padStart(10)}${'0'.padStart(9)}${'16777216'.padStart(9)}${bvi.padStart(13)}`,
      );
    }
    return `${rows.join('\n')}\n`;
  }
}

/**
 * How many words name the errors command after "show" / "clear": "errors" or an abbreviation of
 * it at least `min` long (1; prefix matching in vlib_cli_sub_command_match: "show e" is
 * ambiguous with "show event-logger", "show er" is not; no other "clear e..." command exists in
 * VPP 26.06), or "node counters" (2; "node" spelled out), else 0.
 */
function errorsCommand(w1: string, w2: string, min: number): number {
  if (w1.length >= min && 'errors'.startsWith(w1)) return 1;
  if (w1 === 'node' && w2.length >= 1 && 'counters'.startsWith(w2)) return 2;
  return 0;
}

/**
 * GUESS: VPP answers get_api_json with the .api.json text of every loaded module; the simulator
 * only knows its generated definitions and answers a JSON array describing those.
 */
function apiJson(): string {
  const describe = (d: MessageDef): unknown[] => [
    d.name,
    ...d.fields.map((f) => [
      typeof f[1] === 'string' ? f[1] : `vl_api_${f[1].name}_t`,
      f[0],
      ...(f.length > 2 ? [f[2], ...(f.length > 3 ? [f[3]] : [])] : []),
    ]),
    { crc: `0x${d.crc}` },
  ];
  return JSON.stringify([
    {
      types: [],
      messages: definitions.map(describe),
      services: {},
      options: {},
      aliases: {},
      enums: [],
      unions: [],
      vl_api_version: '0x00000000',
    },
  ]);
}
