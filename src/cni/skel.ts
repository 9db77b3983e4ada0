/**
 * Dispatch of one CNI invocation, after containernetworking's pkg/skel: environment checks from a
 * table, per-command minimum spec versions, one error type printed as JSON on stdout (libcni reads
 * stdout, not stderr) with exit code 1. All inputs are injected, so tests run many invocations side
 * by side in one process and nothing here reads or writes process-global state.
 */
import { linkNameProblem } from '../net/link-name.js';
import { isContainerId } from '../agent-api/protocol.js';
import { parseCniArgs } from './cni-args.js';
import { CniError, CniErrorCode, toCniError } from './errors.js';
import { decodeNetworkConfigObject, isRecord } from './json-fields.js';
import { formatResult, type CniResult } from './result.js';
import { compareVersions, isVersionString } from './version.js';

export type CniCommand = 'ADD' | 'DEL' | 'CHECK' | 'GC' | 'STATUS' | 'VERSION';
const COMMANDS: readonly CniCommand[] = ['ADD', 'DEL', 'CHECK', 'GC', 'STATUS', 'VERSION'];

export type CniEnv = Readonly<Record<string, string | undefined>>;

/** Where output goes; process.stdout and a test's string collector both fit. */
export interface TextSink {
  write(chunk: string): unknown;
}

export interface CniIo {
  readonly env: CniEnv;
  readonly stdin: string | Uint8Array | AsyncIterable<string | Uint8Array>;
  readonly stdout: TextSink;
  readonly stderr: TextSink;
}

/** Structured log lines on stderr: the runtime keeps stdout for the result. */
export interface CniLog {
  info(msg: string, fields?: Readonly<Record<string, unknown>>): void;
  warn(msg: string, fields?: Readonly<Record<string, unknown>>): void;
}

export interface CmdArgs {
  readonly command: CniCommand;
  readonly containerId: string;
  /** '' when unset (allowed for DEL, GC, STATUS). */
  readonly netns: string;
  readonly ifname: string;
  /** CNI_ARGS as received; already checked to be well formed. */
  readonly args: string;
  /** CNI_PATH split into directories. */
  readonly path: readonly string[];
  readonly stdinData: string;
  /** The network config's cniVersion, already checked to be supported. */
  readonly cniVersion: string;
  /** The whole environment, handed on to delegated plugins as libcni's invoke does. */
  readonly env: CniEnv;
  readonly log: CniLog;
}

export interface CniHandlers {
  /** Returns the result in the current (1.1.0) form; skel converts it to the config's version. */
  add(args: CmdArgs): Promise<CniResult>;
  del(args: CmdArgs): Promise<void>;
  check(args: CmdArgs): Promise<void>;
  gc(args: CmdArgs): Promise<void>;
  status(args: CmdArgs): Promise<void>;
}

interface EnvVarRule {
  readonly name: string;
  /** Commands that fail when the variable is unset or empty. */
  readonly requiredFor: readonly CniCommand[];
  /** Commands that read it (and so validate it when set). */
  readonly usedBy: readonly CniCommand[];
  /** Returns a problem description, or undefined when the value is fine. */
  readonly validate?: (value: string) => string | undefined;
}

/** Same rules as skel: CNI_NETNS is optional for DEL (the netns may be gone), CNI_PATH is needed to find IPAM. */
export const ENV_VAR_RULES: readonly EnvVarRule[] = [
  {
    name: 'CNI_CONTAINERID',
    requiredFor: ['ADD', 'DEL', 'CHECK'],
    usedBy: ['ADD', 'DEL', 'CHECK'],
    validate: (value) => (isContainerId(value) ? undefined : 'invalid characters in container ID'),
  },
  {
    name: 'CNI_NETNS',
    requiredFor: ['ADD', 'CHECK'],
    usedBy: ['ADD', 'DEL', 'CHECK'],
    validate: (value) =>
      value.startsWith('/') ? undefined : 'must be an absolute path to a network namespace',
  },
  {
    name: 'CNI_IFNAME',
    requiredFor: ['ADD', 'DEL', 'CHECK'],
    usedBy: ['ADD', 'DEL', 'CHECK'],
    validate: validateIfname,
  },
  {
    name: 'CNI_ARGS',
    requiredFor: [],
    usedBy: ['ADD', 'DEL', 'CHECK'],
    validate: (value) => {
      try {
        parseCniArgs(value);
        return undefined;
      } catch (err) {
        return (err as Error).message;
      }
    },
  },
  {
    name: 'CNI_PATH',
    requiredFor: ['ADD', 'DEL', 'CHECK', 'GC', 'STATUS'],
    usedBy: ['ADD', 'DEL', 'CHECK', 'GC', 'STATUS'],
  },
];

/** Commands that exist only from some spec version on; older configs get code 1, as skel answers. */
export const MIN_VERSION_FOR_COMMAND: Readonly<Partial<Record<CniCommand, string>>> = {
  CHECK: '0.4.0',
  GC: '1.1.0',
  STATUS: '1.1.0',
};

/** The kernel's rules for a link name (IFNAMSIZ 16 with the NUL), as skel's ValidateInterfaceName. */
export function validateIfname(name: string): string | undefined {
  return linkNameProblem(name);
}

/** Runs one invocation and returns the process exit code (0 or 1). */
export async function runCni(
  io: CniIo,
  handlers: CniHandlers,
  supportedVersions: readonly string[],
): Promise<number> {
  const newestVersion = supportedVersions.reduce((a, b) => (compareVersions(a, b) >= 0 ? a : b));
  // The version printed in an error: the config's when it is one we speak, else our newest.
  let replyVersion = newestVersion;
  try {
    const command = readCommand(io.env);
    checkEnvironment(command, io.env);
    const stdinData = await readStdin(io.stdin);

    if (command === 'VERSION') {
      // The spec echoes the caller's cniVersion; skel prints its own newest when there is none. A
      // version we do not speak (or no version at all, of any length) is not printed back either.
      const asked = peekCniVersion(stdinData);
      const echoed = asked !== undefined && supportedVersions.includes(asked) ? asked : newestVersion;
      const reply = { cniVersion: echoed, supportedVersions: [...supportedVersions] };
      io.stdout.write(`${JSON.stringify(reply)}\n`);
      return 0;
    }

    const cniVersion = decodeConfigVersion(stdinData, supportedVersions);
    replyVersion = cniVersion;
    const minVersion = MIN_VERSION_FOR_COMMAND[command];
    if (minVersion !== undefined && compareVersions(cniVersion, minVersion) < 0) {
      throw new CniError(
        CniErrorCode.INCOMPATIBLE_CNI_VERSION,
        `config version does not allow ${command}`,
        `config is ${JSON.stringify(cniVersion)}, ${command} needs ${minVersion} or later`,
      );
    }

    const args: CmdArgs = {
      command,
      containerId: io.env['CNI_CONTAINERID'] ?? '',
      netns: io.env['CNI_NETNS'] ?? '',
      ifname: io.env['CNI_IFNAME'] ?? '',
      args: io.env['CNI_ARGS'] ?? '',
      path: (io.env['CNI_PATH'] ?? '').split(':').filter((dir) => dir !== ''),
      stdinData,
      cniVersion,
      env: io.env,
      log: createStderrLog(io.stderr, command),
    };
    switch (command) {
      case 'ADD': {
        const result = await handlers.add(args);
        io.stdout.write(`${JSON.stringify(formatResult(result, cniVersion), null, 2)}\n`);
        break;
      }
      case 'DEL':
        await handlers.del(args);
        break;
      case 'CHECK':
        await handlers.check(args);
        break;
      case 'GC':
        await handlers.gc(args);
        break;
      case 'STATUS':
        await handlers.status(args);
        break;
    }
    return 0;
  } catch (err) {
    const cniError = toCniError(err);
    io.stdout.write(`${JSON.stringify(cniError.toSpecJson(replyVersion), null, 2)}\n`);
    return 1;
  }
}

function readCommand(env: CniEnv): CniCommand {
  const command = env['CNI_COMMAND'];
  if (command === undefined || command === '') {
    throw new CniError(
      CniErrorCode.INVALID_ENVIRONMENT_VARIABLES,
      'required env variables [CNI_COMMAND] missing',
    );
  }
  if (!(COMMANDS as readonly string[]).includes(command)) {
    throw new CniError(CniErrorCode.INVALID_ENVIRONMENT_VARIABLES, `unknown CNI_COMMAND: ${command}`);
  }
  return command as CniCommand;
}

/** Every missing and every invalid variable in one error, so an operator fixes them in one go. */
function checkEnvironment(command: CniCommand, env: CniEnv): void {
  const missing: string[] = [];
  const invalid: string[] = [];
  for (const rule of ENV_VAR_RULES) {
    const value = env[rule.name];
    if (value === undefined || value === '') {
      if (rule.requiredFor.includes(command)) missing.push(rule.name);
      continue;
    }
    if (!rule.usedBy.includes(command) || rule.validate === undefined) continue;
    const problem = rule.validate(value);
    if (problem !== undefined) invalid.push(`${rule.name}: ${problem}`);
  }
  if (missing.length === 0 && invalid.length === 0) return;
  const parts: string[] = [];
  if (missing.length > 0) parts.push(`required env variables [${missing.join(',')}] missing`);
  if (invalid.length > 0)
    parts.push(`invalid env variables [${invalid.map((line) => line.split(':')[0]).join(',')}]`);
  throw new CniError(
    CniErrorCode.INVALID_ENVIRONMENT_VARIABLES,
    parts.join('; '),
    invalid.length > 0 ? invalid.join('\n') : undefined,
  );
}

async function readStdin(stdin: CniIo['stdin']): Promise<string> {
  if (typeof stdin === 'string') return stdin;
  if (stdin instanceof Uint8Array) return Buffer.from(stdin).toString('utf8');
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of stdin)
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
    return Buffer.concat(chunks).toString('utf8');
  } catch (err) {
    throw new CniError(
      CniErrorCode.IO_FAILURE,
      'error reading network config from stdin',
      (err as Error).message,
    );
  }
}

function peekCniVersion(stdinData: string): string | undefined {
  try {
    const decoded: unknown = JSON.parse(stdinData);
    const version = isRecord(decoded) ? decoded['cniVersion'] : undefined;
    return typeof version === 'string' && version !== '' ? version : undefined;
  } catch {
    return undefined;
  }
}

function decodeConfigVersion(stdinData: string, supportedVersions: readonly string[]): string {
  const decoded = decodeNetworkConfigObject(stdinData);
  const version = decoded['cniVersion'] ?? '0.1.0';
  if (typeof version !== 'string') {
    throw new CniError(CniErrorCode.DECODING_FAILURE, 'cniVersion in the network config is not a string');
  }
  if (!isVersionString(version) || !supportedVersions.includes(version)) {
    throw new CniError(
      CniErrorCode.INCOMPATIBLE_CNI_VERSION,
      'incompatible CNI versions',
      `config is ${JSON.stringify(version)}, plugin supports [${supportedVersions.join(' ')}]`,
    );
  }
  return version;
}

function createStderrLog(stderr: TextSink, command: CniCommand): CniLog {
  const write = (level: string, msg: string, fields?: Readonly<Record<string, unknown>>): void => {
    stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level, command, msg, ...fields })}\n`);
  };
  return {
    info: (msg, fields) => write('info', msg, fields),
    warn: (msg, fields) => write('warn', msg, fields),
  };
}
