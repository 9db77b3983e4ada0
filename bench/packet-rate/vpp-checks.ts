/**
 * What the packet-rate benchmark requires of the VPP behind VPP_API_SOCKET before it changes
 * anything: a real VPP 26.06 (vppnet's simulator keeps configuration but forwards no packets),
 * with the packet generator, and — in pg mode — nothing of an earlier run.
 */
import { VppRetvalError } from '../../src/vpp/client/retval-error.js';
import type { VppClient } from '../../src/vpp/client/vpp-client.js';
import { msg } from '../../src/vpp/messages/index.js';

export type BenchErrorCode =
  | 'VPPNET_BENCH_NO_SOCKET'
  | 'VPPNET_BENCH_SIMULATOR'
  | 'VPPNET_BENCH_VERSION'
  | 'VPPNET_BENCH_NO_PG'
  | 'VPPNET_BENCH_NOT_FRESH'
  | 'VPPNET_BENCH_USAGE'
  | 'VPPNET_BENCH_CLI'
  | 'VPPNET_BENCH_SETUP';

/** A reason not to run (exit code 2) or a failure while running (exit code 1). */
export class BenchError extends Error {
  readonly code: BenchErrorCode;
  constructor(code: BenchErrorCode, message: string) {
    super(message);
    this.name = 'BenchError';
    this.code = code;
  }

  get refusal(): boolean {
    return this.code !== 'VPPNET_BENCH_CLI' && this.code !== 'VPPNET_BENCH_SETUP';
  }
}

/** The VPP the simulator pretends to be (src/vpp/sim/simulator.ts defaults). */
const SIM_BUILD_DIRECTORY = '/vppnet-sim';
const SIM_BUILT_BY = /built by vppnet on sim\b/;

export interface VppFacts {
  readonly version: string;
  /** First line of `show version`. */
  readonly banner: string;
}

/** Runs a CLI command; a non-zero retval (vlib_cli_input's error) throws with VPP's message. */
export async function cli(client: VppClient, cmd: string): Promise<string> {
  const reply = await cliInband(client, cmd, 60_000);
  if (reply.retval !== 0) {
    throw new BenchError(
      'VPPNET_BENCH_CLI',
      `VPP refused \`${cmd.split('\n')[0]}${cmd.includes('\n') ? ' …' : ''}\` (retval ${reply.retval}): ${reply.reply.trim() || '(no message)'}`,
    );
  }
  return reply.reply;
}

/** cli_inband's answer, a non-zero retval included: its `reply` then holds VPP's message. */
async function cliInband(
  client: VppClient,
  cmd: string,
  timeoutMs?: number,
): Promise<{ retval: number; reply: string }> {
  try {
    const answer = await client.call(msg.cli_inband, { cmd }, timeoutMs === undefined ? {} : { timeoutMs });
    return { retval: 0, reply: answer.reply };
  } catch (err) {
    if (!(err instanceof VppRetvalError)) throw err;
    const text = err.reply?.reply;
    return { retval: err.retval, reply: typeof text === 'string' ? text : '' };
  }
}

/**
 * Refuses anything but a real VPP 26.06 with the packet generator. The simulator is recognised by
 * what it answers to show_version and `show version`, and, explicitly, by having no `show
 * packet-generator` (which every VPP with the pg has).
 */
export async function ensureRealVpp(
  client: VppClient,
  socketPath: string,
  opts: { readonly anyVersion: boolean },
): Promise<VppFacts> {
  const v = await client.call(msg.show_version, {});
  const banner = (await cliInband(client, 'show version')).reply.split('\n')[0]?.trim() ?? '';
  if (v.build_directory === SIM_BUILD_DIRECTORY || SIM_BUILT_BY.test(banner)) {
    throw new BenchError(
      'VPPNET_BENCH_SIMULATOR',
      `bench/packet-rate needs a real VPP 26.06 that forwards packets, but VPP_API_SOCKET=${socketPath} is vppnet's VPP simulator ` +
        `("${banner}"), which keeps configuration and forwards no packets. Start a real VPP 26.06 and point VPP_API_SOCKET at its API socket (bench/README.md).`,
    );
  }
  const pg = await cliInband(client, 'show packet-generator');
  if (pg.retval !== 0 || /unknown input/.test(pg.reply)) {
    throw new BenchError(
      'VPPNET_BENCH_NO_PG',
      `the VPP at ${socketPath} ("${banner}") has no packet generator (\`show packet-generator\` answered: ${pg.reply.trim() || `retval ${pg.retval}`}); ` +
        "bench/packet-rate drives its paths with VPP's pg, or use --nic with an external generator",
    );
  }
  const version = v.version.replace(/^v/, '');
  if (!version.startsWith('26.06') && !opts.anyVersion) {
    throw new BenchError(
      'VPPNET_BENCH_VERSION',
      `the VPP at ${socketPath} is ${v.version}; vppnet targets VPP 26.06 (its messages, CRCs and CLI). Use --any-version to measure anyway.`,
    );
  }
  return { version: v.version, banner };
}

/**
 * pg mode builds everything from scratch and leaves it in place for inspection, so it refuses a VPP
 * that already holds its interfaces or tables: restart VPP between runs.
 */
export async function ensureFresh(
  client: VppClient,
  socketPath: string,
  opts: { readonly interfaces: readonly string[]; readonly tables: readonly number[] },
): Promise<void> {
  const [ifs, tables] = await Promise.all([
    client.dump(msg.sw_interface_dump, { sw_if_index: 0xffffffff, name_filter_valid: false }),
    client.dump(msg.ip_table_dump, {}),
  ]);
  const found = [
    ...ifs
      .filter((i) => opts.interfaces.includes(i.interface_name) || i.tag.startsWith('vppnet:'))
      .map((i) => `interface ${i.interface_name}${i.tag ? ` (${i.tag})` : ''}`),
    ...tables
      .filter((t) => !t.table.is_ip6 && opts.tables.includes(t.table.table_id))
      .map((t) => `IPv4 table ${t.table.table_id}`),
  ];
  if (found.length > 0) {
    throw new BenchError(
      'VPPNET_BENCH_NOT_FRESH',
      `the VPP at ${socketPath} already has ${found.slice(0, 5).join(', ')}${found.length > 5 ? ` and ${found.length - 5} more` : ''}: ` +
        'bench/packet-rate configures a freshly started VPP and leaves its configuration in place for inspection. Restart VPP and run again.',
    );
  }
}
