/**
 * IPAM delegation: run the IPAM plugin named by ipam.type from CNI_PATH with the same network config
 * and environment (only CNI_COMMAND changes), as libcni's invoke package does. The plugin's own error
 * JSON is re-raised unchanged so the runtime sees the IPAM plugin's code and message.
 *
 * Version fallback: the reference IPAM plugins of many distributions (e.g. Debian's 1.1.1) stop at
 * spec 1.0.0, and a 1.1.0 config makes them answer code 1. The config is then re-sent once with the
 * newest version both sides speak; GC and STATUS exist only from 1.1.0, so they are skipped for such
 * plugins (which have nothing to collect or report through CNI anyway).
 */
import { constants as fsConstants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { join } from 'node:path';

import type { NetworkConfig } from './config.js';
import { CniError, CniErrorCode, cniErrorFromJson } from './errors.js';
import { FieldProblems, isRecord } from './json-fields.js';
import { formatResult, parseResult, type CniResult } from './result.js';
import { execPlugin } from './exec-plugin.js';
import type { CmdArgs } from './skel.js';
import { SUPPORTED_CNI_VERSIONS, compareVersions } from './version.js';

export interface IpamDelegate {
  add(config: NetworkConfig, args: CmdArgs): Promise<CniResult>;
  del(config: NetworkConfig, args: CmdArgs): Promise<void>;
  check(config: NetworkConfig, args: CmdArgs): Promise<void>;
  /** False when the plugin predates GC (spec < 1.1.0) and was not called. */
  gc(config: NetworkConfig, args: CmdArgs): Promise<boolean>;
  /** False when the plugin predates STATUS (spec < 1.1.0) and was not called. */
  status(config: NetworkConfig, args: CmdArgs): Promise<boolean>;
}

type DelegatedCommand = 'ADD' | 'DEL' | 'CHECK' | 'GC' | 'STATUS';

/** The oldest version each delegated command exists in. */
const MIN_VERSION: Readonly<Record<DelegatedCommand, string>> = {
  ADD: '0.3.0',
  DEL: '0.3.0',
  CHECK: '0.4.0',
  GC: '1.1.0',
  STATUS: '1.1.0',
};

export interface ExecIpamOptions {
  /** A hung IPAM plugin (e.g. a dhcp daemon that never answers) must not hang the runtime forever. */
  readonly timeoutMs?: number;
}

/** The first executable regular file named `type` in the CNI_PATH directories, in order. */
export async function findPluginInPath(type: string, dirs: readonly string[]): Promise<string> {
  for (const dir of dirs) {
    const candidate = join(dir, type);
    try {
      await access(candidate, fsConstants.X_OK);
      if ((await stat(candidate)).isFile()) return candidate;
    } catch {
      // Not in this directory; keep looking.
    }
  }
  throw new CniError(
    CniErrorCode.INVALID_NETWORK_CONFIG,
    `ipam.type: plugin ${JSON.stringify(type)} not found in CNI_PATH`,
    `searched: ${dirs.length > 0 ? dirs.join(', ') : '(CNI_PATH is empty)'}`,
  );
}

export class ExecIpam implements IpamDelegate {
  readonly #timeoutMs: number;

  constructor(options: ExecIpamOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? 60_000;
  }

  async add(config: NetworkConfig, args: CmdArgs): Promise<CniResult> {
    const stdout = await this.#runWithVersionFallback('ADD', config, args);
    let decoded: unknown;
    try {
      decoded = JSON.parse(stdout);
    } catch {
      throw new CniError(
        CniErrorCode.DECODING_FAILURE,
        `IPAM plugin ${JSON.stringify(config.ipam.type)} printed a result that is not JSON`,
        stdout.slice(0, 500),
      );
    }
    const problems = new FieldProblems();
    const result = parseResult(decoded, 'ipamResult', problems);
    if (!problems.isEmpty) {
      throw new CniError(
        CniErrorCode.DECODING_FAILURE,
        `IPAM plugin ${JSON.stringify(config.ipam.type)} printed an invalid result`,
        problems.lines.join('\n'),
      );
    }
    return result;
  }

  async del(config: NetworkConfig, args: CmdArgs): Promise<void> {
    await this.#runWithVersionFallback('DEL', config, args);
  }

  async check(config: NetworkConfig, args: CmdArgs): Promise<void> {
    await this.#runWithVersionFallback('CHECK', config, args);
  }

  gc(config: NetworkConfig, args: CmdArgs): Promise<boolean> {
    return this.#runIfSupported('GC', config, args);
  }

  status(config: NetworkConfig, args: CmdArgs): Promise<boolean> {
    return this.#runIfSupported('STATUS', config, args);
  }

  async #runWithVersionFallback(
    command: DelegatedCommand,
    config: NetworkConfig,
    args: CmdArgs,
  ): Promise<string> {
    const pluginPath = await findPluginInPath(config.ipam.type, args.path);
    try {
      return await this.#run(pluginPath, command, config.cniVersion, config, args);
    } catch (err) {
      // Code 1 is answered before the plugin does anything, so asking again is safe.
      if (!(err instanceof CniError) || err.code !== CniErrorCode.INCOMPATIBLE_CNI_VERSION) throw err;
      const version = pickVersion(
        await this.#supportedVersions(pluginPath, config, args),
        command,
        config.cniVersion,
      );
      if (version === undefined || version === config.cniVersion) throw err;
      args.log.info('retrying IPAM plugin with an older spec version', {
        ipam: config.ipam.type,
        configVersion: config.cniVersion,
        version,
      });
      return await this.#run(pluginPath, command, version, config, args);
    }
  }

  async #runIfSupported(command: 'GC' | 'STATUS', config: NetworkConfig, args: CmdArgs): Promise<boolean> {
    const pluginPath = await findPluginInPath(config.ipam.type, args.path);
    const version = pickVersion(
      await this.#supportedVersions(pluginPath, config, args),
      command,
      config.cniVersion,
    );
    if (version === undefined) return false;
    await this.#run(pluginPath, command, version, config, args);
    return true;
  }

  /** The plugin's VERSION answer, or undefined when it gives none we can read. */
  async #supportedVersions(
    pluginPath: string,
    config: NetworkConfig,
    args: CmdArgs,
  ): Promise<string[] | undefined> {
    try {
      const stdout = await this.#exec(
        pluginPath,
        'VERSION',
        JSON.stringify({ cniVersion: config.cniVersion }),
        args.env,
      );
      const decoded: unknown = JSON.parse(stdout);
      const versions = isRecord(decoded) ? decoded['supportedVersions'] : undefined;
      if (Array.isArray(versions) && versions.every((v): v is string => typeof v === 'string'))
        return versions;
    } catch {
      // Fall through: an unreadable VERSION answer means no fallback.
    }
    return undefined;
  }

  async #run(
    pluginPath: string,
    command: DelegatedCommand,
    version: string,
    config: NetworkConfig,
    args: CmdArgs,
  ): Promise<string> {
    return this.#exec(pluginPath, command, configForVersion(config, args.stdinData, version), args.env);
  }

  async #exec(pluginPath: string, command: string, stdinData: string, env: CmdArgs['env']): Promise<string> {
    const result = await execPlugin(
      pluginPath,
      stdinData,
      { ...definedOnly(env), CNI_COMMAND: command },
      this.#timeoutMs,
    );
    if (result.timedOut) {
      throw new CniError(
        CniErrorCode.TRY_AGAIN_LATER,
        `IPAM plugin ${pluginPath} did not finish ${command} within ${this.#timeoutMs} ms`,
      );
    }
    if (result.exitCode === 0) return result.stdout;
    if (result.exitCode === undefined) {
      throw new CniError(CniErrorCode.INTERNAL, `cannot run IPAM plugin ${pluginPath}`, result.error);
    }
    let decoded: unknown;
    try {
      decoded = JSON.parse(result.stdout);
    } catch {
      decoded = undefined;
    }
    // The IPAM plugin's own error is what the runtime should see, code and all.
    throw (
      cniErrorFromJson(decoded) ??
      new CniError(
        CniErrorCode.INTERNAL,
        `IPAM plugin ${pluginPath} failed ${command} with exit code ${result.exitCode}`,
        (result.stderr || result.stdout).trim().slice(0, 2000),
      )
    );
  }
}

/** Newest version both speak that is not newer than the config's and has `command`. */
function pickVersion(
  pluginVersions: readonly string[] | undefined,
  command: DelegatedCommand,
  configVersion: string,
): string | undefined {
  if (pluginVersions === undefined) return undefined;
  return SUPPORTED_CNI_VERSIONS.filter(
    (v) =>
      pluginVersions.includes(v) &&
      compareVersions(v, configVersion) <= 0 &&
      compareVersions(v, MIN_VERSION[command]) >= 0,
  ).reduce<string | undefined>(
    (best, v) => (best === undefined || compareVersions(v, best) > 0 ? v : best),
    undefined,
  );
}

/** The config as received, or re-encoded for an older version (prevResult converted with it). */
function configForVersion(config: NetworkConfig, stdinData: string, version: string): string {
  if (version === config.cniVersion) return stdinData;
  return JSON.stringify({
    ...config.raw,
    cniVersion: version,
    ...(config.prevResult !== undefined && { prevResult: formatResult(config.prevResult, version) }),
  });
}

function definedOnly(env: CmdArgs['env']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}
