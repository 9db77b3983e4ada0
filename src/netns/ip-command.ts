/**
 * Running `ip` on the host or inside a pod's netns. The runner is injected (systemRunner by
 * default) so tests can make any single command fail and check that what was created is removed
 * again.
 */
import { runProgram } from '../util/run-program.js';

import { NetnsError } from './errors.js';
import type { ResolvedNetns } from './resolve-netns.js';

export interface CommandResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs a program with arguments (no shell), `input` on its stdin, and reports how it ended; throws
 * only if it could not run.
 */
export type CommandRunner = (file: string, args: readonly string[], input?: string) => Promise<CommandResult>;

/** `ip` must not hang the agent; 30 s is far beyond any rtnetlink request. */
const COMMAND_TIMEOUT_MS = 30_000;

/** Runs it with src/util/run-program.ts; output as execa (used before) gave it: without the final newline. */
export const systemRunner: CommandRunner = async (file, args, input) => {
  const run = await runProgram(file, args, {
    timeoutMs: COMMAND_TIMEOUT_MS,
    ...(input === undefined ? {} : { input }),
  });
  if (run.exitCode === undefined) {
    const why = run.timedOut
      ? `timed out after ${COMMAND_TIMEOUT_MS} ms`
      : (run.error ?? 'it did not finish');
    throw new NetnsError('VPPNET_ERR_IP_COMMAND', `cannot run ${file}: ${why}`);
  }
  return {
    exitCode: run.exitCode,
    stdout: withoutFinalNewline(run.stdout),
    stderr: withoutFinalNewline(run.stderr),
  };
};

function withoutFinalNewline(text: string): string {
  return text.endsWith('\r\n') ? text.slice(0, -2) : text.endsWith('\n') ? text.slice(0, -1) : text;
}

/**
 * `ip ARGS` on the host (netns undefined) or in the netns: `ip -n NAME` for namespaces `ip netns`
 * knows, `nsenter --net=PATH ip` (util-linux) for any other path such as /proc/PID/ns/net.
 */
export function runIp(
  runner: CommandRunner,
  netns: ResolvedNetns | undefined,
  args: readonly string[],
  input?: string,
): Promise<CommandResult> {
  if (netns === undefined) return runner('ip', args, input);
  if (netns.kind === 'named') return runner('ip', ['-n', netns.name, ...args], input);
  return runner('nsenter', [`--net=${netns.path}`, '--', 'ip', ...args], input);
}

/** How a batch ended: `failed` is the index of the command that stopped it. */
export interface BatchResult extends CommandResult {
  readonly failed?: number;
}

/**
 * Several `ip` commands in one run (`ip -batch -`), so one fork/exec and one namespace switch serve
 * them all: each `ip` run costs ~10 ms of the agent's time, and an ADD used to need six. `ip` stops
 * at the first command that fails and names its line; the commands before it took effect.
 * Arguments must not contain whitespace or quotes (names and addresses, checked by the callers).
 */
export async function runIpBatch(
  runner: CommandRunner,
  netns: ResolvedNetns | undefined,
  commands: readonly (readonly string[])[],
): Promise<BatchResult> {
  for (const args of commands) {
    const bad = args.find((arg) => arg === '' || /[\s"'\\#]/.test(arg));
    if (bad !== undefined) {
      throw new NetnsError('VPPNET_ERR_INVALID_ARGUMENT', `cannot pass ${JSON.stringify(bad)} to ip -batch`);
    }
  }
  const input = commands.map((args) => `${args.join(' ')}\n`).join('');
  const result = await runIp(runner, netns, ['-batch', '-'], input);
  if (result.exitCode === 0) return result;
  // iproute2: "Command failed -:LINE" after the failing command's own message.
  const line = /Command failed -:(\d+)/.exec(result.stderr)?.[1];
  if (line === undefined) return result;
  const stderr = result.stderr.replace(/\n?Command failed -:\d+\s*$/, '');
  return { ...result, stderr, failed: Number(line) - 1 };
}

/** Like runIp, but a non-zero exit becomes a NetnsError naming the command and carrying its stderr. */
export async function runIpOrThrow(
  runner: CommandRunner,
  netns: ResolvedNetns | undefined,
  args: readonly string[],
): Promise<CommandResult> {
  const result = await runIp(runner, netns, args);
  if (result.exitCode !== 0) throw commandError(netns, args, result);
  return result;
}

export function commandError(
  netns: ResolvedNetns | undefined,
  args: readonly string[],
  result: CommandResult,
): NetnsError {
  const where = netns === undefined ? 'host' : `netns ${netns.path}`;
  const code = isNoSuchDevice(result.stderr) ? 'VPPNET_ERR_LINK_NOT_FOUND' : 'VPPNET_ERR_IP_COMMAND';
  return new NetnsError(
    code,
    `ip ${args.join(' ')} failed in ${where} (exit ${result.exitCode}): ${result.stderr.trim()}`,
  );
}

/**
 * iproute2's wording for a missing link differs between `show` and the other commands, and
 * between a name it cannot resolve ("Cannot find device") and a link that went after it resolved
 * the name (ENODEV from rtnetlink, "No such device"): a veth whose peer's namespace is being torn
 * down vanishes in the kernel's cleanup work at any moment, between those two steps too.
 */
export function isNoSuchDevice(stderr: string): boolean {
  return /Cannot find device|does not exist|No such device/.test(stderr);
}

/** EEXIST from rtnetlink, for links, addresses and routes alike. */
export function isAlreadyExists(stderr: string): boolean {
  return /File exists/.test(stderr);
}
