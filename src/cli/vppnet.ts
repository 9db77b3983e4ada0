#!/usr/bin/env node
/**
 * vppnet: the operator's CLI.
 *   vppnet plan   [--config FILE | --datastore etcd --node-name NODE] [--vpp SOCKET] [--state-dir DIR] [--json] [--verbose]
 *   vppnet status --config FILE | --datastore etcd --node-name NODE [--vpp SOCKET] [--state-dir DIR] [--json]
 *   vppnet version | --version | -V
 *   vppnet install-cni --source FILE --dest DIR [--name vppnet-cni]
 * Without --vpp, plan uses the bundled example (examples/hypervisor-1.yaml) unless --config or
 * VPPNET_CONFIG is given. Against a live VPP (status, plan --vpp) the bundled example would only produce a
 * meaningless diff, so there the config must be named (--config, or the agent's VPPNET_CONFIG).
 * Settings the agent also has (state dir, VPP socket, datastore, node name, etcd connection)
 * default as the agent's do, environment variables included, so the CLI run next to an agent sees
 * what the agent sees. With --datastore etcd the node's config is what its agent derives from the
 * records (datastore-config.ts).
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import path from 'node:path';
import { loadConfigFile } from '../config/load.js';
import { ConfigError, isNodeName } from '../config/validate.js';
import { configReferenceMarkdown } from '../config/reference.js';
import { linuxHostLinks } from '../agent/host-links.js';
import { hostLinkOwner } from '../netns/link-owner.js';
import { reconcile } from '../agent/reconciler.js';
import { planFresh } from '../hypervisor/desired-state.js';
import { type ReconcileOutcome } from '../hypervisor/reconcile.js';
import { DEFAULT_STATE_DIR } from '../agent/agent-flags.js';
import { SR_GLOBALS_FILE, SrGlobalsFileStore } from '../agent/sr-globals-file-store.js';
import type { AgentConfig } from '../config/model.js';
import type { VppApi } from '../vpp/client/vpp-api.js';
import { VppClient, DEFAULT_SOCKET_PATH } from '../vpp/client/vpp-client.js';
import { versionLine } from '../util/version.js';
import { msg } from '../vpp/messages/index.js';
import { formatPlan, planToJson } from './format-plan.js';
import { INSTALL_CNI_USAGE, installCniCommand } from './install-cni.js';
import {
  CONNECTION_HELP,
  CONNECTION_OPTIONS,
  DatastoreUsageError,
  connectionOf,
  datastoreCommand,
} from './datastore.js';
import { nodeConfigFromDatastore } from './datastore-config.js';
import { srGlobalsNotes } from './sr-globals-notes.js';
import { CliUsageError } from './usage-error.js';
import { errorLine, exitCodeOf } from './exit-status.js';
import { knownOps, underlayAnnouncementUnknowns, type UnknownItem } from './underlay-announcement-notes.js';

export const EXAMPLE_CONFIG = fileURLToPath(new URL('../../../examples/hypervisor-1.yaml', import.meta.url));

const STATE_DIR_HELP = `  --state-dir DIR   the agent's state directory, read only; consulted only when VPP's CLI does not
                    report the SRv6 encap hop limit or source (env VPPNET_STATE_DIR; default ${DEFAULT_STATE_DIR})`;

const DATASTORE_HELP = `  --datastore etcd  the node's config as its agent derives it from the fleet's records in etcd
                    (env VPPNET_DATASTORE, when --config is not given; default file)
  --node-name NODE  with --datastore etcd: the node record (env VPPNET_NODE_NAME)
  with --datastore etcd, where etcd is (as vppnet datastore):
${CONNECTION_HELP}`;

export const PLAN_USAGE = `usage: vppnet plan [--config FILE | --datastore etcd --node-name NODE] [--vpp SOCKET] [--state-dir DIR] [--json] [--verbose]
  The ordered VPP operations for a fresh VPP, or with --vpp the diff against a live one. Changes nothing.
  --config FILE     the agent config (env VPPNET_CONFIG); without --vpp and without either, the
                    bundled example; with --vpp required, unless --datastore etcd
  --vpp SOCKET      diff against the VPP behind this API socket (read only)
${STATE_DIR_HELP}
  --json            the plan as JSON
  --verbose         every value, not only the keys
${DATASTORE_HELP}`;

export const STATUS_USAGE = `usage: vppnet status --config FILE | --datastore etcd --node-name NODE [--vpp SOCKET] [--state-dir DIR] [--json]
  What vppnet owns in a live VPP, and whether it matches the config. Changes nothing.
  --config FILE     the agent config of this node (or env VPPNET_CONFIG); required unless
                    --datastore etcd
  --vpp SOCKET      VPP's API socket (env VPPNET_VPP_SOCKET; default ${DEFAULT_SOCKET_PATH})
${STATE_DIR_HELP}
  --json            the summary as JSON
${DATASTORE_HELP}`;

const USAGE = `usage:
  vppnet plan   [--config FILE | --datastore etcd --node-name NODE] [--vpp SOCKET] [--state-dir DIR] [--json] [--verbose]
      the ordered VPP operations for a fresh VPP, or with --vpp the diff against a live one;
      changes nothing
  vppnet status --config FILE | --datastore etcd --node-name NODE [--vpp SOCKET] [--state-dir DIR] [--json]
      what vppnet owns in a live VPP, and whether it matches the config
  vppnet datastore put|get|delete|import ...
      the fleet's records in etcd (vppnet datastore --help)
  vppnet config-reference
      the agent config's reference as Markdown (the README's configuration reference)
  vppnet COMMAND --help
  vppnet -h | --help | help
  vppnet version | --version | -V
${INSTALL_CNI_USAGE}
exit status: 0 done (or the help asked for), 1 failed (invalid config or records, VPP or etcd
not reachable), 2 usage error`;

export { CliUsageError };

export async function main(
  argv: readonly string[],
  out: NodeJS.WritableStream = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
  err: NodeJS.WritableStream = process.stderr,
): Promise<number> {
  const [command, ...rest] = argv;
  // Its own options (--source, --dest, --name), which the other commands do not take.
  if (command === 'install-cni') return installCniCommand(rest, out, err);
  if (command === 'datastore') return datastoreCommand(rest, out, env, err);
  const write = (s: string): void => void out.write(s.endsWith('\n') ? s : `${s}\n`);
  switch (command) {
    case 'plan': {
      const values = parseCommandArgs(command, rest);
      if (values.help) {
        write(PLAN_USAGE);
        return 0;
      }
      if (values.vpp === undefined) {
        const desired = await desiredConfigOf(command, values, env, false);
        const plan = planFresh(desired.config);
        if (values.json)
          write(
            JSON.stringify(
              { ...(planToJson(plan) as object), ...(desired.notes.length > 0 && { notes: desired.notes }) },
              null,
              2,
            ),
          );
        else
          write(
            `vppnet plan: ${desired.source} against a fresh VPP (no VPP contacted)\n${noteLinesOf(desired.notes)}\n${formatPlan(plan, { verbose: values.verbose })}`,
          );
        return 0;
      }
      const vppSocket = values.vpp;
      const desired = await desiredConfigOf(command, values, env, true);
      const { config } = desired;
      return await withVpp(vppSocket, async (client) => {
        const planned = await planAgainst(client, vppSocket, config, stateDirOf(values['state-dir'], env));
        const outcome = planned.outcome;
        const notes = [...desired.notes, ...planned.notes];
        if (values.json) {
          write(
            JSON.stringify(
              { ...(planToJson(outcome.plan) as object), ...(notes.length > 0 && { notes }) },
              null,
              2,
            ),
          );
        } else {
          write(
            `vppnet plan: ${desired.source} against the VPP at ${vppSocket}\n${noteLinesOf(notes)}\n${formatPlan(outcome.plan, { verbose: values.verbose })}`,
          );
        }
        return 0;
      });
    }
    case 'status': {
      const values = parseCommandArgs(command, rest);
      if (values.help) {
        write(STATUS_USAGE);
        return 0;
      }
      const desired = await desiredConfigOf(command, values, env, true);
      const socket = values.vpp ?? nonEmptyEnv(env, 'VPPNET_VPP_SOCKET') ?? DEFAULT_SOCKET_PATH;
      const { config } = desired;
      return await withVpp(socket, async (client) => {
        const version = await client.call(msg.show_version, {});
        const planned = await planAgainst(client, socket, config, stateDirOf(values['state-dir'], env));
        const { plan, owned } = planned.outcome;
        const notes = [...desired.notes, ...planned.notes];
        // What could not be checked is neither in sync nor a difference: it is reported apart.
        const pending = knownOps(plan, planned.unknown);
        const summary = {
          vpp: { socket, version: version.version, pid: client.vppPid },
          config: desired.source,
          owned: Object.fromEntries([...owned].sort()),
          inSync: pending.length === 0,
          pendingOps: pending.length,
          unknown: planned.unknown.map((u) => u.key),
          notes,
        };
        if (values.json) write(JSON.stringify(summary, null, 2));
        else {
          write(`VPP ${summary.vpp.version} (pid ${summary.vpp.pid}) at ${socket}`);
          write(`config ${desired.source}`);
          write('objects vppnet owns:');
          // A loop, not Math.max(...kinds): the list is short, but a spread of it need not stay so.
          let width = 16;
          for (const kind of Object.keys(summary.owned)) width = Math.max(width, kind.length);
          for (const [kind, n] of Object.entries(summary.owned)) write(`  ${kind.padEnd(width)} ${n}`);
          for (const n of notes) write(`note: ${n}`);
          const unchecked =
            summary.unknown.length > 0 ? ` (not checked: ${summary.unknown.join(', ')}; see the note)` : '';
          write(
            summary.inSync
              ? `in sync with the config${unchecked}`
              : `${pending.length} operations away from the config${unchecked} (see vppnet plan ${desired.args} --vpp ${socket})`,
          );
        }
        return 0;
      });
    }
    case 'config-reference':
      // No options: --help prints this usage, not the reference, and anything else is refused
      // rather than ignored, as the other commands do.
      if (takesNoArguments(command, rest, CONFIG_REFERENCE_USAGE)) write(CONFIG_REFERENCE_USAGE);
      else write(configReferenceMarkdown());
      return 0;
    case 'version':
    case '--version':
    case '-V':
      if (takesNoArguments(command, rest, VERSION_USAGE)) write(VERSION_USAGE);
      else write(versionLine('vppnet'));
      return 0;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      write(USAGE);
      return 0;
    default:
      // Named, so that a typo is told apart from a command this version does not have.
      err.write(`vppnet: unknown command ${JSON.stringify(command)}\n${USAGE}\n`);
      return 2;
  }
}

const CONFIG_REFERENCE_USAGE = `usage: vppnet config-reference
  The agent config's reference as Markdown: every field, its type, whether it is required, its
  default and its meaning (the README's configuration reference is generated from it).`;

const VERSION_USAGE = `usage: vppnet version | --version | -V
  Prints vppnet's version and the VPP API release its messages are generated from.`;

/**
 * For a command without options: true when its help was asked for (-h, --help); false when it
 * was given nothing; any other argument is a usage error (status 2).
 */
function takesNoArguments(command: string, args: readonly string[], usage: string): boolean {
  if (args.length === 0) return false;
  if (args.length === 1 && (args[0] === '--help' || args[0] === '-h')) return true;
  throw new CliUsageError(
    `${command}: takes no arguments, got ${args.map((a) => JSON.stringify(a)).join(' ')}\n${usage}`,
  );
}

/** plan's and status's flags, with the connection flags in both spellings (datastore.ts). */
const COMMAND_OPTIONS = {
  config: { type: 'string' },
  vpp: { type: 'string' },
  'state-dir': { type: 'string' },
  datastore: { type: 'string' },
  'node-name': { type: 'string' },
  ...CONNECTION_OPTIONS,
  json: { type: 'boolean', default: false },
  verbose: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

// parseArgs' own result type, so that each flag's type follows its option's (no second list).
const parseCommandValues = (args: readonly string[]) =>
  parseArgs({ args: [...args], options: COMMAND_OPTIONS, allowPositionals: false, strict: true }).values;
type CommandValues = ReturnType<typeof parseCommandValues>;

function parseCommandArgs(command: 'plan' | 'status', args: readonly string[]): CommandValues {
  let values: CommandValues;
  try {
    values = parseCommandValues(args);
  } catch (err) {
    throw new CliUsageError(`${command}: ${(err as Error).message} (see vppnet ${command} --help)`);
  }
  if (command === 'status' && values.verbose === true)
    throw new CliUsageError('status: --verbose is an option of plan only');
  for (const flag of ['config', 'vpp', 'state-dir', 'datastore', 'node-name'] as const) {
    if (values[flag] === '') throw new CliUsageError(`${command}: --${flag} must not be empty`);
  }
  return values;
}

/** The config against a live VPP: --config, else the agent's VPPNET_CONFIG, never the example. */
function liveConfigPath(
  command: 'plan' | 'status',
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
): string {
  const file = flag ?? nonEmptyEnv(env, 'VPPNET_CONFIG');
  if (file === undefined) {
    throw new CliUsageError(
      `${command}${command === 'plan' ? ' --vpp' : ''}: --config FILE is required: the agent config of the node whose VPP is read ` +
        `(or env VPPNET_CONFIG; or --datastore etcd --node-name NODE for its records); the bundled example is used only by plan without --vpp`,
    );
  }
  return file;
}

/** The desired state a command plans with, where it came from, and what to note about it. */
interface DesiredConfig {
  readonly config: AgentConfig;
  /** For the header: the file's path, or "node hv1 from etcd … under …". */
  readonly source: string;
  /** The arguments that name the same source again (status points at plan with them). */
  readonly args: string;
  /** Records the derivation left out, as the agent reports them. */
  readonly notes: readonly string[];
}

/**
 * The config file (--config; without a live VPP the bundled example), or with --datastore etcd
 * (the flag, else VPPNET_DATASTORE when no --config is given) the node's records.
 */
async function desiredConfigOf(
  command: 'plan' | 'status',
  values: CommandValues,
  env: NodeJS.ProcessEnv,
  live: boolean,
): Promise<DesiredConfig> {
  const datastore =
    values.datastore ?? (values.config === undefined ? nonEmptyEnv(env, 'VPPNET_DATASTORE') : undefined);
  if (datastore !== undefined && datastore !== 'file' && datastore !== 'etcd')
    throw new CliUsageError(`${command}: --datastore must be file or etcd, got '${datastore}'`);
  if (datastore !== 'etcd') {
    for (const flag of ['node-name', ...Object.keys(CONNECTION_OPTIONS)] as const) {
      if (values[flag as keyof CommandValues] !== undefined)
        throw new CliUsageError(`${command}: --${flag} goes with --datastore etcd`);
    }
    const configPath = live ? liveConfigPath(command, values.config, env) : configPathOf(values.config, env);
    return {
      config: await loadNamedConfig(configPath, values.config === undefined),
      source: configPath,
      args: `--config ${configPath}`,
      notes: [],
    };
  }
  if (values.config !== undefined)
    throw new CliUsageError(
      `${command}: --config and --datastore etcd are two sources of desired state: give one`,
    );
  const node = values['node-name'] ?? nonEmptyEnv(env, 'VPPNET_NODE_NAME');
  if (node === undefined)
    throw new CliUsageError(
      `${command}: --datastore etcd needs --node-name (or VPPNET_NODE_NAME): the node record to read`,
    );
  // As the agent checks it (agent-flags.ts): a name that is no node name names no record either.
  if (!isNodeName(node))
    throw new CliUsageError(
      `${command}: --node-name: '${node}' is not a Kubernetes node name (lowercase RFC 1123)`,
    );
  let settings;
  try {
    settings = connectionOf(values, env);
  } catch (err) {
    if (err instanceof DatastoreUsageError) throw new CliUsageError(`${command}: ${err.message}`);
    throw err;
  }
  const derived = await nodeConfigFromDatastore(settings, node);
  return {
    config: derived.config,
    source: derived.description,
    args: `--datastore etcd --node-name ${node}`,
    notes: derived.problems.map((p) => `left out: ${p}`),
  };
}

/**
 * Without a live VPP: --config, else VPPNET_CONFIG, else the bundled example. A VPPNET_CONFIG that
 * is set is used even when it names nothing: planning the example instead would answer a question
 * nobody asked (the error then names the path and the variable).
 */
function configPathOf(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  return flag ?? nonEmptyEnv(env, 'VPPNET_CONFIG') ?? EXAMPLE_CONFIG;
}

/** The config file, its errors naming VPPNET_CONFIG when that is where the path came from. */
async function loadNamedConfig(configPath: string, fromEnv: boolean): Promise<AgentConfig> {
  try {
    return await loadConfigFile(configPath);
  } catch (err) {
    if (fromEnv && configPath !== EXAMPLE_CONFIG && err instanceof ConfigError)
      throw new ConfigError(err.problems, `${configPath} (named by env VPPNET_CONFIG)`);
    throw err;
  }
}

function noteLinesOf(notes: readonly string[]): string {
  return notes.map((n) => `note: ${n}\n`).join('');
}

/** As the agent's --state-dir: the flag, else VPPNET_STATE_DIR, else the default. */
function stateDirOf(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  return flag ?? nonEmptyEnv(env, 'VPPNET_STATE_DIR') ?? DEFAULT_STATE_DIR;
}

function nonEmptyEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

/**
 * A plan-only reconcile against a live VPP, with the agent's memory of the SRv6 globals read only
 * (the fallback for what VPP's CLI does not report), and the notes on where those came from.
 */
async function planAgainst(
  client: VppApi,
  socket: string,
  config: AgentConfig,
  stateDir: string,
): Promise<{ outcome: ReconcileOutcome; notes: string[]; unknown: UnknownItem[] }> {
  const globals = new SrGlobalsFileStore(path.join(stateDir, SR_GLOBALS_FILE), undefined, { readOnly: true });
  const outcome = await reconcile(config, {
    client,
    host: linuxHostLinks(hostLinkOwner(socket)),
    globals,
    planOnly: true,
  });
  const memory = await globals.load();
  const unknown = underlayAnnouncementUnknowns(outcome.plan, memory, globals);
  const notes = [...srGlobalsNotes(outcome.snapshot, config, memory, globals), ...unknown.map((u) => u.note)];
  return { outcome, notes, unknown };
}

async function withVpp(socket: string, fn: (client: VppApi) => Promise<number>): Promise<number> {
  const client = new VppClient({ socketPath: socket, clientName: 'vppnet-cli', healthCheckIntervalMs: 0 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

if (
  process.argv[1] &&
  fileURLToPath(import.meta.url) === (await import('node:fs')).realpathSync(process.argv[1])
) {
  // A reader that stopped early (`vppnet status | head -1`) has what it wanted: end quietly, as
  // other Unix tools do on SIGPIPE, instead of dying on an unhandled 'error' event. What was to be
  // written to etcd has been by the time anything is printed, so there is nothing to undo.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    process.stderr.write(`vppnet: stdout: ${err.message}\n`);
    process.exit(1);
  });
  // process.exitCode, never process.exit(): output into a pipe is written asynchronously, and
  // process.exit() would drop whatever the reader has not taken yet (a plan cut at the pipe's
  // 64 KiB). The process ends once stdout and stderr are flushed and every connection is closed.
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`vppnet${errorLine(err)}\n`);
      process.exitCode = exitCodeOf(err);
    },
  );
}
