/**
 * The CNI result, held in the newest spec form (1.1.0) from the moment it is built or parsed, and
 * converted to the runtime's version only when printed or handed to an older delegate. Keeping one
 * in-memory shape means the plugin never branches on versions.
 */
import { cidrFamily } from '../net/cidr.js';
import { ipLiteralFamily as ipFamily } from '../net/ip-literal.js';
import {
  FieldProblems,
  describe,
  isRecord,
  optionalInteger,
  optionalString,
  optionalStringList,
  type JsonRecord,
} from './json-fields.js';
import { compareVersions } from './version.js';

export interface ResultInterface {
  readonly name: string;
  readonly mac?: string;
  /** 1.1.0 */
  readonly mtu?: number;
  /** The netns path for interfaces inside the pod; absent for host interfaces. */
  readonly sandbox?: string;
  /** 1.1.0 */
  readonly socketPath?: string;
  /** 1.1.0 */
  readonly pciID?: string;
}

export interface ResultIp {
  readonly address: string;
  readonly gateway?: string;
  /** Index into `interfaces`; IPAM plugins leave it out. */
  readonly interface?: number;
}

export interface ResultRoute {
  readonly dst: string;
  readonly gw?: string;
  /** 1.1.0 route attributes, passed through untouched. */
  readonly mtu?: number;
  readonly advmss?: number;
  readonly priority?: number;
  readonly table?: number;
  readonly scope?: number;
}

export interface ResultDns {
  readonly nameservers?: readonly string[];
  readonly domain?: string;
  readonly search?: readonly string[];
  readonly options?: readonly string[];
}

export interface CniResult {
  readonly interfaces: readonly ResultInterface[];
  readonly ips: readonly ResultIp[];
  readonly routes: readonly ResultRoute[];
  readonly dns: ResultDns;
}

export const EMPTY_RESULT: CniResult = { interfaces: [], ips: [], routes: [], dns: {} };

/**
 * Reads a result of any supported version (0.3.0 and later share the field names; 0.3.x/0.4.0 add
 * `version` to each IP, which is ignored here and recomputed when printing). Problems are added to
 * `problems` under `path`; the returned value is only meaningful when none were added.
 */
export function parseResult(value: unknown, path: string, problems: FieldProblems): CniResult {
  if (!isRecord(value)) {
    problems.add(path, `must be an object, got ${describe(value)}`);
    return EMPTY_RESULT;
  }
  const interfaces = listOf(value, 'interfaces', path, problems, parseInterface);
  const ips = listOf(value, 'ips', path, problems, parseIp);
  const routes = listOf(value, 'routes', path, problems, parseRoute);
  let dns: ResultDns = {};
  if (value['dns'] !== undefined) {
    if (isRecord(value['dns'])) dns = parseDns(value['dns'], `${path}.dns`, problems);
    else problems.add(`${path}.dns`, `must be an object, got ${describe(value['dns'])}`);
  }
  ips.forEach((ip, i) => {
    if (ip.interface !== undefined && ip.interface >= interfaces.length) {
      problems.add(
        `${path}.ips[${i}].interface`,
        `index ${ip.interface} is not in interfaces (${interfaces.length})`,
      );
    }
  });
  return { interfaces, ips, routes, dns };
}

export function parseDns(obj: JsonRecord, path: string, problems: FieldProblems): ResultDns {
  const prefix = `${path}.`;
  const nameservers = optionalStringList(obj, 'nameservers', prefix, problems);
  nameservers?.forEach((server, i) => {
    if (ipFamily(server) === 0)
      problems.add(`${prefix}nameservers[${i}]`, `must be an IP address, got ${describe(server)}`);
  });
  const domain = optionalString(obj, 'domain', prefix, problems);
  const search = optionalStringList(obj, 'search', prefix, problems);
  const options = optionalStringList(obj, 'options', prefix, problems);
  return {
    ...(nameservers !== undefined && { nameservers }),
    ...(domain !== undefined && { domain }),
    ...(search !== undefined && { search }),
    ...(options !== undefined && { options }),
  };
}

function listOf<T>(
  obj: JsonRecord,
  key: string,
  path: string,
  problems: FieldProblems,
  parseItem: (item: JsonRecord, itemPath: string, problems: FieldProblems) => T,
): T[] {
  const value = obj[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    problems.add(`${path}.${key}`, `must be a list, got ${describe(value)}`);
    return [];
  }
  const items: T[] = [];
  value.forEach((item: unknown, i) => {
    const itemPath = `${path}.${key}[${i}]`;
    if (isRecord(item)) items.push(parseItem(item, itemPath, problems));
    else problems.add(itemPath, `must be an object, got ${describe(item)}`);
  });
  return items;
}

function parseInterface(obj: JsonRecord, path: string, problems: FieldProblems): ResultInterface {
  const prefix = `${path}.`;
  const name = optionalString(obj, 'name', prefix, problems);
  if (name === undefined || name === '') problems.add(`${prefix}name`, 'is required');
  const mac = optionalString(obj, 'mac', prefix, problems);
  const mtu = optionalInteger(obj, 'mtu', prefix, problems, { min: 0, max: 65535 });
  const sandbox = optionalString(obj, 'sandbox', prefix, problems);
  const socketPath = optionalString(obj, 'socketPath', prefix, problems);
  const pciID = optionalString(obj, 'pciID', prefix, problems);
  return {
    name: name ?? '',
    ...(mac !== undefined && mac !== '' && { mac }),
    ...(mtu !== undefined && { mtu }),
    ...(sandbox !== undefined && sandbox !== '' && { sandbox }),
    ...(socketPath !== undefined && socketPath !== '' && { socketPath }),
    ...(pciID !== undefined && pciID !== '' && { pciID }),
  };
}

function parseIp(obj: JsonRecord, path: string, problems: FieldProblems): ResultIp {
  const prefix = `${path}.`;
  const address = optionalString(obj, 'address', prefix, problems);
  if (address === undefined || cidrFamily(address) === 0) {
    problems.add(
      `${prefix}address`,
      `must be an address with prefix length (CIDR), got ${describe(obj['address'])}`,
    );
  }
  const gateway = optionalString(obj, 'gateway', prefix, problems);
  if (gateway !== undefined && gateway !== '' && ipFamily(gateway) === 0) {
    problems.add(`${prefix}gateway`, `must be an IP address, got ${describe(gateway)}`);
  }
  const iface = optionalInteger(obj, 'interface', prefix, problems, { min: 0, max: 0xffff });
  return {
    address: address ?? '',
    ...(gateway !== undefined && gateway !== '' && { gateway }),
    ...(iface !== undefined && { interface: iface }),
  };
}

function parseRoute(obj: JsonRecord, path: string, problems: FieldProblems): ResultRoute {
  const prefix = `${path}.`;
  const dst = optionalString(obj, 'dst', prefix, problems);
  if (dst === undefined || cidrFamily(dst) === 0) {
    problems.add(`${prefix}dst`, `must be a prefix (CIDR), got ${describe(obj['dst'])}`);
  }
  const gw = optionalString(obj, 'gw', prefix, problems);
  if (gw !== undefined && gw !== '' && ipFamily(gw) === 0) {
    problems.add(`${prefix}gw`, `must be an IP address, got ${describe(gw)}`);
  }
  const attrs: { -readonly [K in 'mtu' | 'advmss' | 'priority' | 'table' | 'scope']?: number } = {};
  for (const key of ['mtu', 'advmss', 'priority', 'table', 'scope'] as const) {
    const value = optionalInteger(obj, key, prefix, problems, { min: 0, max: 0xffffffff });
    if (value !== undefined) attrs[key] = value;
  }
  return { dst: dst ?? '', ...(gw !== undefined && gw !== '' && { gw }), ...attrs };
}

/**
 * The JSON the runtime expects for `version`: 1.0.0 drops the 1.1.0-only fields; 0.3.x and 0.4.0
 * also carry `version` ("4" or "6") on each IP, which 1.0.0 removed.
 */
export function formatResult(result: CniResult, version: string): JsonRecord {
  const hasV110Fields = compareVersions(version, '1.1.0') >= 0;
  const hasIpVersion = compareVersions(version, '1.0.0') < 0;
  const out: JsonRecord = { cniVersion: version };
  if (result.interfaces.length > 0) {
    out['interfaces'] = result.interfaces.map((iface) => {
      const json: JsonRecord = { name: iface.name };
      if (iface.mac !== undefined) json['mac'] = iface.mac;
      if (hasV110Fields && iface.mtu !== undefined) json['mtu'] = iface.mtu;
      if (iface.sandbox !== undefined) json['sandbox'] = iface.sandbox;
      if (hasV110Fields && iface.socketPath !== undefined) json['socketPath'] = iface.socketPath;
      if (hasV110Fields && iface.pciID !== undefined) json['pciID'] = iface.pciID;
      return json;
    });
  }
  if (result.ips.length > 0) {
    out['ips'] = result.ips.map((ip) => {
      const json: JsonRecord = {};
      if (hasIpVersion) json['version'] = cidrFamily(ip.address) === 6 ? '6' : '4';
      json['address'] = ip.address;
      if (ip.gateway !== undefined) json['gateway'] = ip.gateway;
      if (ip.interface !== undefined) json['interface'] = ip.interface;
      return json;
    });
  }
  if (result.routes.length > 0) {
    out['routes'] = result.routes.map((route) => {
      const json: JsonRecord = { dst: route.dst };
      if (route.gw !== undefined) json['gw'] = route.gw;
      if (hasV110Fields) {
        for (const key of ['mtu', 'advmss', 'priority', 'table', 'scope'] as const) {
          if (route[key] !== undefined) json[key] = route[key];
        }
      }
      return json;
    });
  }
  // Always present, as the reference plugins print it (Go never omits a struct field).
  out['dns'] = { ...result.dns };
  return out;
}
