/**
 * The network configuration on stdin, parsed in one function: decode, defaults, validation of every
 * field (all bad fields reported in one error), then the explicit precedence of per-invocation
 * values: runtimeConfig > args.cni > CNI_ARGS.
 */
import {
  ATTACH_MODES,
  DEFAULT_AGENT_SOCKET,
  type AttachMode,
  type ValidAttachment,
} from '../agent-api/protocol.js';
import { isUnicastMac } from '../net/mac.js';
import { parseCniArgs } from './cni-args.js';
import { CniError, CniErrorCode } from './errors.js';
import {
  FieldProblems,
  decodeNetworkConfigObject,
  describe,
  isRecord,
  optionalInteger,
  optionalString,
  type JsonRecord,
} from './json-fields.js';
import { parseDns, parseResult, type CniResult, type ResultDns } from './result.js';
import { SUPPORTED_CNI_VERSIONS, isVersionString } from './version.js';

export interface IpamConfig {
  /** File name of the IPAM plugin on CNI_PATH. */
  readonly type: string;
}

export interface NetworkConfig {
  readonly cniVersion: string;
  readonly name: string;
  readonly type: string;
  readonly ipam: IpamConfig;
  readonly agentSocket: string;
  readonly mode: AttachMode;
  readonly mtu?: number;
  /** The pod interface's MAC, after precedence. */
  readonly mac?: string;
  readonly dns?: ResultDns;
  /** Converted to the current result form whatever version it arrived in. */
  readonly prevResult?: CniResult;
  /** GC only: `cni.dev/valid-attachments`. */
  readonly validAttachments?: readonly ValidAttachment[];
  /** The decoded stdin object, for delegating to IPAM with the same configuration. */
  readonly raw: Readonly<JsonRecord>;
}

const NAME_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;
/** sun_path is 108 bytes including the terminating NUL. */
const MAX_SOCKET_PATH_BYTES = 107;
const MTU_RANGE = { min: 68, max: 65535 };
export const VALID_ATTACHMENTS_KEY = 'cni.dev/valid-attachments';

export interface ParseConfigOptions {
  /** CNI_ARGS as received ('' when unset); lowest precedence for per-invocation values. */
  readonly cniArgs?: string;
}

/** Throws CniError: 6 undecodable, 1 unsupported cniVersion, 7 invalid fields, 4 bad CNI_ARGS values. */
export function parseNetworkConfig(stdinData: string, options: ParseConfigOptions = {}): NetworkConfig {
  const raw = decodeNetworkConfigObject(stdinData);
  const cniVersion = checkCniVersion(raw['cniVersion']);

  const problems = new FieldProblems();
  const name = optionalString(raw, 'name', '', problems);
  if (name === undefined) {
    if (raw['name'] === undefined) problems.add('name', 'is required');
  } else if (!NAME_PATTERN.test(name)) {
    problems.add(
      'name',
      `must start with a letter or digit followed by letters, digits, '_', '.' or '-', got ${describe(name)}`,
    );
  }

  const type = optionalString(raw, 'type', '', problems);
  if (type === undefined ? raw['type'] === undefined : type === '') problems.add('type', 'is required');

  const ipam = parseIpam(raw['ipam'], problems);

  const agentSocket = optionalString(raw, 'agentSocket', '', problems) ?? DEFAULT_AGENT_SOCKET;
  if (!agentSocket.startsWith('/')) {
    problems.add('agentSocket', `must be an absolute path, got ${describe(agentSocket)}`);
  } else if (Buffer.byteLength(agentSocket) > MAX_SOCKET_PATH_BYTES) {
    problems.add('agentSocket', `is longer than a Unix socket path may be (${MAX_SOCKET_PATH_BYTES} bytes)`);
  }

  const modeText = optionalString(raw, 'mode', '', problems);
  let mode: AttachMode = 'auto';
  if (modeText !== undefined) {
    if ((ATTACH_MODES as readonly string[]).includes(modeText)) mode = modeText as AttachMode;
    else problems.add('mode', `must be one of ${ATTACH_MODES.join(', ')}, got ${describe(modeText)}`);
  }

  const mtu = optionalInteger(raw, 'mtu', '', problems, MTU_RANGE);

  let dns: ResultDns | undefined;
  if (raw['dns'] !== undefined) {
    if (isRecord(raw['dns'])) dns = parseDns(raw['dns'], 'dns', problems);
    else problems.add('dns', `must be an object, got ${describe(raw['dns'])}`);
  }

  const prevResult =
    raw['prevResult'] === undefined ? undefined : parseResult(raw['prevResult'], 'prevResult', problems);
  const validAttachments = parseValidAttachments(raw[VALID_ATTACHMENTS_KEY], problems);
  const runtimeMac = macFrom(raw['runtimeConfig'], 'runtimeConfig', problems);
  const argsMac = macFrom(isRecord(raw['args']) ? raw['args']['cni'] : undefined, 'args.cni', problems);
  if (raw['args'] !== undefined && !isRecord(raw['args'])) {
    problems.add('args', `must be an object, got ${describe(raw['args'])}`);
  }

  if (!problems.isEmpty) {
    throw new CniError(
      CniErrorCode.INVALID_NETWORK_CONFIG,
      `invalid network config: ${problems.lines.join('; ')}`,
      problems.lines.join('\n'),
    );
  }

  const mac = runtimeMac ?? argsMac ?? macFromCniArgs(options.cniArgs ?? '');
  return {
    cniVersion,
    name: name as string,
    type: type as string,
    ipam: ipam as IpamConfig,
    agentSocket,
    mode,
    ...(mtu !== undefined && { mtu }),
    ...(mac !== undefined && { mac }),
    ...(dns !== undefined && { dns }),
    ...(prevResult !== undefined && { prevResult }),
    ...(validAttachments !== undefined && { validAttachments }),
    raw,
  };
}

/** The spec's code 1 for versions we do not speak; a missing version is the spec's implicit 0.1.0. */
export function checkCniVersion(value: unknown): string {
  if (value !== undefined && typeof value !== 'string') {
    throw new CniError(CniErrorCode.DECODING_FAILURE, `cniVersion: must be a string, got ${describe(value)}`);
  }
  const version = value ?? '0.1.0';
  if (!isVersionString(version) || !SUPPORTED_CNI_VERSIONS.includes(version)) {
    throw new CniError(
      CniErrorCode.INCOMPATIBLE_CNI_VERSION,
      'incompatible CNI versions',
      `config is ${JSON.stringify(version)}${value === undefined ? ' (cniVersion missing)' : ''}, plugin supports [${SUPPORTED_CNI_VERSIONS.join(' ')}]`,
    );
  }
  return version;
}

function parseIpam(value: unknown, problems: FieldProblems): IpamConfig | undefined {
  if (value === undefined) {
    problems.add('ipam', 'is required (vppnet-cni delegates addresses to an IPAM plugin)');
    return undefined;
  }
  if (!isRecord(value)) {
    problems.add('ipam', `must be an object, got ${describe(value)}`);
    return undefined;
  }
  const type = optionalString(value, 'type', 'ipam.', problems);
  if (type === undefined) {
    if (value['type'] === undefined) problems.add('ipam.type', 'is required');
    return undefined;
  }
  // A plugin type is a file name looked up on CNI_PATH, never a path.
  if (type === '' || type === '.' || type === '..' || type.includes('/')) {
    problems.add('ipam.type', `must be a plugin file name, got ${describe(type)}`);
    return undefined;
  }
  return { type };
}

function macFrom(container: unknown, path: string, problems: FieldProblems): string | undefined {
  if (container === undefined) return undefined;
  if (!isRecord(container)) {
    problems.add(path, `must be an object, got ${describe(container)}`);
    return undefined;
  }
  const mac = optionalString(container, 'mac', `${path}.`, problems);
  if (mac === undefined) return undefined;
  if (!isUnicastMac(mac)) {
    problems.add(`${path}.mac`, `must be a unicast MAC address like 02:00:00:00:00:01, got ${describe(mac)}`);
    return undefined;
  }
  return mac.toLowerCase();
}

function macFromCniArgs(cniArgs: string): string | undefined {
  let mac: string | undefined;
  try {
    mac = parseCniArgs(cniArgs).get('MAC');
  } catch (err) {
    throw new CniError(
      CniErrorCode.INVALID_ENVIRONMENT_VARIABLES,
      'invalid env variables [CNI_ARGS]',
      (err as Error).message,
    );
  }
  if (mac === undefined) return undefined;
  if (!isUnicastMac(mac)) {
    throw new CniError(
      CniErrorCode.INVALID_ENVIRONMENT_VARIABLES,
      'invalid env variables [CNI_ARGS]',
      `MAC must be a unicast MAC address, got ${describe(mac)}`,
    );
  }
  return mac.toLowerCase();
}

function parseValidAttachments(value: unknown, problems: FieldProblems): ValidAttachment[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    problems.add(VALID_ATTACHMENTS_KEY, `must be a list, got ${describe(value)}`);
    return undefined;
  }
  const attachments: ValidAttachment[] = [];
  value.forEach((item: unknown, i) => {
    const path = `${VALID_ATTACHMENTS_KEY}[${i}]`;
    if (!isRecord(item)) {
      problems.add(path, `must be an object, got ${describe(item)}`);
      return;
    }
    const containerID = optionalString(item, 'containerID', `${path}.`, problems);
    const ifname = optionalString(item, 'ifname', `${path}.`, problems);
    if (containerID === undefined || containerID === '') problems.add(`${path}.containerID`, 'is required');
    if (ifname === undefined || ifname === '') problems.add(`${path}.ifname`, 'is required');
    if (containerID && ifname) attachments.push({ containerID, ifname });
  });
  return attachments;
}
