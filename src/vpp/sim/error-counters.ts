/**
 * vlib's error counters (src/vlib/error.c in VPP 26.06) for the graph nodes the simulator models,
 * and the `show errors` / `clear errors` CLI commands that print and reset them.
 *
 * Counters: every node registers its error strings (vlib_register_errors); a node without
 * `error_counters` (the urpf and acl nodes pass `error_strings`) gets desc = name = the string and
 * severity VL_COUNTER_SEVERITY_ERROR. A packet a node drops carries the node's error in b->error
 * and is counted by the `drop` node (vlib/drop.c process_drop_punt); nodes also count directly
 * (vlib_node_increment_counter). The counters live per thread; `clear errors`
 * (clear_error_counters) copies every counter into counters_last_clear, the stats segment keeps
 * counting, and `show errors` prints the difference.
 *
 * `show errors` (show_errors, not verbose): one vlib_cli_output of "%=10s%=35s%=35s%=10s" with
 * Count, Node, Reason, Severity, then for each thread (main first, then the workers) and each
 * node in node-index order, each of its errors in code order whose count since the last clear is
 * not zero: "%10lu%=35v%=35s%=10s" (count, node name, desc, sev2str(severity)). vlib_cli_output
 * ends a line without "\n" with one. vppinfra's justify (format.c) pads to the width, "=" puts
 * the odd space on the left, and *cuts* anything longer than the width to the width.
 *
 * The simulator has no worker threads: everything counts on thread 0, so only the main thread's
 * lines are printed. It counts only what its models see (urpfVerdict, aclVerdict, macipVerdict,
 * arpTermVerdict); a real VPP also shows the counters of the traffic it really handled.
 *
 * Node order (node indices): vlib_register_all_static_nodes registers the nodes in the order of
 * the `node_registrations` list, which each VLIB_REGISTER_NODE constructor *prepends* to. Plugins
 * are dlopen'ed sorted by name (vlib/unix/plugin.c vlib_load_new_plugins), so urpf_plugin.so's
 * constructors run after acl_plugin.so's and its nodes come first; within a plugin the objects run
 * their constructors in link order (SOURCES order: acl's dataplane_node.c, urpf's ip4_urpf.c then
 * ip6_urpf.c) and each object in definition order, so a file's last registration comes first.
 * Checked on a v26.06 build (clang, GNU ld): the .init_array of acl_plugin.so and urpf_plugin.so
 * lists the registrations in definition order, and `show errors` after uRPF and ACL drops sent
 * with the packet generator printed exactly the lines of error-counters.test.ts, in that order.
 */

/** enum vl_counter_severity_e → sev2str. */
export type Severity = 'error' | 'warn' | 'info' | 'unknown';

/** foreach_urpf_error (src/plugins/urpf/urpf_dp.h). */
export const URPF_ERROR = { DROP: 'uRPF Drop' } as const;

/** foreach_acl_fa_error (src/plugins/acl/dataplane_node.c), codes 0..6 in this order. */
export const ACL_FA_ERROR = {
  ACL_DROP: 'ACL deny packets',
  ACL_PERMIT: 'ACL permit packets',
  ACL_NEW_SESSION: 'new sessions added',
  ACL_EXIST_SESSION: 'existing session packets',
  ACL_CHECK: 'checked packets',
  ACL_RESTART_SESSION_TIMER: 'restart session timer',
  ACL_TOO_MANY_SESSIONS: 'too many sessions to add new',
} as const;

/** foreach_l2_inacl_error (src/vnet/l2/l2_in_out_acl.c), the node l2-input-acl. */
export const L2_INACL_ERROR = {
  NONE: 'valid input ACL packets',
  MISS: 'input ACL misses',
  HIT: 'input ACL hits',
  CHAIN_HIT: 'input ACL hits after chain walk',
  TABLE_MISS: 'input ACL table-miss drops',
  SESSION_DENY: 'input ACL session deny drops',
} as const;

/** foreach_ethernet_arp_error (src/vnet/l2/l2_arp_term.c), the node arp-term-l2bd. */
export const ARP_TERM_ERROR = {
  replies_sent: 'ARP replies sent',
  l2_type_not_ethernet: 'L2 type not ethernet',
  l3_type_not_ip4: 'L3 type not IP4',
  l3_src_address_not_local: 'IP4 source address not local to subnet',
  l3_dst_address_not_local: 'IP4 destination address not local to subnet',
  l3_dst_address_unset: 'IP4 destination address is unset',
  l3_src_address_is_local: 'IP4 source address matches local interface',
  l3_src_address_learned: 'ARP request IP4 source address learned',
  replies_received: 'ARP replies received',
  opcode_not_request: 'ARP opcode not request',
  proxy_arp_replies_sent: 'Proxy ARP replies sent',
  l2_address_mismatch: 'ARP hw addr does not match L2 frame src addr',
  gratuitous_arp: 'ARP probe or announcement dropped',
  interface_no_table: 'Interface is not mapped to an IP table',
  interface_not_ip_enabled: 'Interface is not IP enabled',
  unnumbered_mismatch: 'RX interface is unnumbered to different subnet',
} as const;

interface NodeErrors {
  readonly name: string;
  /** desc of each error code, in code order. */
  readonly errors: readonly string[];
  readonly severity: Severity;
}

const URPF_STRINGS = [URPF_ERROR.DROP];
const ACL_STRINGS = Object.values(ACL_FA_ERROR);
const legacy = (name: string, errors: readonly string[]): NodeErrors => ({ name, errors, severity: 'error' });

/**
 * The modelled nodes in node-index order (see the header): urpf's ip6_urpf.c then ip4_urpf.c
 * (each file's registrations reversed), then acl's dataplane_node.c (reversed: the L3 `-fa`
 * nodes, registered last, before the `-l2` ones). Then vnet's own nodes: libvnet.so runs its
 * constructors when the vpp binary loads, before main dlopens the plugins, so they come after
 * every plugin's; within libvnet by VNET_SOURCES order reversed: l2/l2_in_out_acl.c (l2-input-acl)
 * comes after l2/l2_arp_term.c in the list, so before arp-term-l2bd. (Derived from the build
 * files, not seen on a build.)
 */
const NODES: readonly NodeErrors[] = [
  legacy('ip6-tx-urpf-strict', URPF_STRINGS),
  legacy('ip6-tx-urpf-loose', URPF_STRINGS),
  legacy('ip6-rx-urpf-strict', URPF_STRINGS),
  legacy('ip6-rx-urpf-loose', URPF_STRINGS),
  legacy('ip4-tx-urpf-strict', URPF_STRINGS),
  legacy('ip4-tx-urpf-loose', URPF_STRINGS),
  legacy('ip4-rx-urpf-strict', URPF_STRINGS),
  legacy('ip4-rx-urpf-loose', URPF_STRINGS),
  legacy('acl-plugin-out-ip4-fa', ACL_STRINGS),
  legacy('acl-plugin-out-ip6-fa', ACL_STRINGS),
  legacy('acl-plugin-in-ip4-fa', ACL_STRINGS),
  legacy('acl-plugin-in-ip6-fa', ACL_STRINGS),
  legacy('acl-plugin-out-ip4-l2', ACL_STRINGS),
  legacy('acl-plugin-out-ip6-l2', ACL_STRINGS),
  legacy('acl-plugin-in-ip4-l2', ACL_STRINGS),
  legacy('acl-plugin-in-ip6-l2', ACL_STRINGS),
  legacy('l2-input-acl', Object.values(L2_INACL_ERROR)),
  legacy('arp-term-l2bd', Object.values(ARP_TERM_ERROR)),
];

export interface ErrorCounterSnapshot {
  readonly node: string;
  readonly reason: string;
  readonly severity: Severity;
  /** Since the last `clear errors`: what `show errors` prints. */
  readonly count: number;
  /** Since the process started: what the stats segment's /err/<node>/<reason> says. */
  readonly total: number;
}

/** vppinfra justify (format.c) for "%=Ns", "%-Ns", "%+Ns"/"%Nlu": pad, or cut to the width. */
export function justify(s: string, width: number, how: '=' | '-' | '+'): string {
  if (s.length >= width) return s.slice(0, width);
  const n = width - s.length;
  if (how === '-') return s + ' '.repeat(n);
  if (how === '+') return ' '.repeat(n) + s;
  const right = Math.floor(n / 2);
  return ' '.repeat(n - right) + s + ' '.repeat(right);
}

export class ErrorCounters {
  /** Per node (NODES order), per error code: the thread-0 counter and counters_last_clear. */
  readonly #counters = NODES.map((n) => n.errors.map(() => 0));
  readonly #lastClear = NODES.map((n) => n.errors.map(() => 0));
  readonly #byName = new Map(NODES.map((n, i) => [n.name, i]));

  #code(node: string, reason: string): [number, number] {
    const i = this.#byName.get(node);
    const code = i === undefined ? -1 : (NODES[i] as NodeErrors).errors.indexOf(reason);
    if (i === undefined || code < 0) throw new Error(`no error counter "${reason}" on node ${node}`);
    return [i, code];
  }

  /** vlib_node_increment_counter, or a drop with this error counted by the drop node. */
  count(node: string, reason: string, n = 1): void {
    const [i, code] = this.#code(node, reason);
    (this.#counters[i] as number[])[code] = ((this.#counters[i] as number[])[code] as number) + n;
  }

  /** clear_error_counters */
  clear(): void {
    this.#counters.forEach((c, i) => c.forEach((v, code) => ((this.#lastClear[i] as number[])[code] = v)));
  }

  /** Every counter with a non-zero total, in `show errors` order. */
  snapshot(): ErrorCounterSnapshot[] {
    const out: ErrorCounterSnapshot[] = [];
    NODES.forEach((n, i) =>
      n.errors.forEach((reason, code) => {
        const total = (this.#counters[i] as number[])[code] as number;
        const count = total - ((this.#lastClear[i] as number[])[code] as number);
        if (total !== 0) out.push({ node: n.name, reason, severity: n.severity, count, total });
      }),
    );
    return out;
  }

  /** show_errors, not verbose, one thread: the CLI output. */
  show(): string {
    const lines = [
      justify('Count', 10, '=') +
        justify('Node', 35, '=') +
        justify('Reason', 35, '=') +
        justify('Severity', 10, '='),
    ];
    for (const c of this.snapshot()) {
      if (c.count === 0) continue;
      lines.push(
        justify(String(c.count), 10, '+') +
          justify(c.node, 35, '=') +
          justify(c.reason, 35, '=') +
          justify(c.severity, 10, '='),
      );
    }
    return lines.map((l) => `${l}\n`).join('');
  }
}
