/**
 * Turns the parsed YAML into an AgentConfig, or reports every problem at once, each naming the
 * field (`vpcs[1].subnets[0]`) and what is wrong with it. Unknown fields are errors: a typo must
 * not silently become a default.
 */
import {
  aggregateIp6,
  ip4InPrefix,
  ip4Network,
  ip4PrefixesOverlap,
  ip4ToInt,
  ip4Mask,
  ip6AddressInPrefix,
  ip6InPrefix,
  canonicalIp6,
  bigIntToIp6,
  ip6ToBigInt,
  ip6PrefixesOverlap,
  ip6Network,
  ip6HasHostBits,
  ip6IndexInPrefix,
  isIp4,
  isIp6,
  isMac,
  parseIp4Prefix,
  parseIp6Prefix,
  type Ip4Prefix,
  type Ip6Prefix,
} from '../net/ip.js';
import { eui64Address } from '../net/eui64.js';
import { isLinkName } from '../net/link-name.js';
import {
  LINK_LOCAL6,
  localAddressesOf,
  localPortOf,
  localWinsMessage,
  reservedIp4Overlap,
  reservedIp6Overlap,
  remoteIp6Problem,
  reservedRangeHolding,
  serviceIp6Problem,
  isHostPrefix,
  type LocalAddresses,
} from './lanes.js';
import { MIN_TENANT_MTU, NODE_DEFAULTS, SERVICE_DEFAULTS, SRV6_ENCAP_OVERHEAD } from './defaults.js';
import { SERVICE_IP6_DEFAULTS } from './defaults.js';
import { DT6_SID_OFFSET, MAX_IP6_LOCATOR_LEN, VPC_DEFAULTS } from './defaults.js';
import { SOURCE_TABLE_BASE, RESERVED_TABLE_LAST } from './defaults.js';
import { UNDERLAY_NEIGHBOR_DEFAULTS } from './defaults.js';
import { fieldsUnder } from './schema.js';
import { VppnetError } from '../util/errors.js';
import type {
  AgentConfig,
  AllowedPrefix,
  NodeConfig,
  PortAttachment,
  PortConfig,
  RemoteRouteConfig,
  ServiceNetworks,
  ServiceVmLimits,
  ServicesConfig,
  ServicesIp6Config,
  SocketAccess,
  VhostUserDefaults,
  VpcConfig,
} from './model.js';

export interface ConfigProblem {
  readonly path: string;
  readonly message: string;
}

export class ConfigError extends VppnetError<'VPPNET_ERR_CONFIG'> {
  readonly problems: readonly ConfigProblem[];
  constructor(problems: readonly ConfigProblem[], source?: string) {
    super(
      'VPPNET_ERR_CONFIG',
      `invalid configuration${source ? ` in ${source}` : ''}:\n` +
        problems.map((p) => `  ${p.path}: ${p.message}`).join('\n'),
    );
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** Names end up in VPP tags ("vppnet:vm:<name>", 63 bytes) and host interface names. */
const NAME_RE = /^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$/;
/** A Kubernetes node name (RFC 1123 subdomain): fleet mode's agents are named by spec.nodeName. */
const NODE_NAME_RE = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

/** Whether `s` is a Kubernetes node name (node.name, and the agent's --node-name). */
export function isNodeName(s: string): boolean {
  return NODE_NAME_RE.test(s);
}
const NETNS_RE = /^[A-Za-z0-9_.-]{1,64}$/;

export { SERVICE_DEFAULTS };

type Obj = Record<string, unknown>;

/**
 * A copy of a string from the parsed file that shares no memory with the file's text. V8 keeps a
 * substring of 13 or more characters as a slice of its source, so one such string kept in the
 * config (a MAC, a socket path, a long name) would keep the whole YAML text (megabytes for a node
 * with 100k routes) alive for as long as the config.
 */
function detached(s: string): string {
  return s.length < 13 ? s : Buffer.from(s, 'utf8').toString('utf8');
}

const SOURCE_TABLE_MESSAGE = `is one of vppnet's own tables (source and fabric tables, ${SOURCE_TABLE_BASE} to ${RESERVED_TABLE_LAST})`;

/** vppnet's own table ids: the source tables, then the fabric tables (defaults.ts). */
function isSourceTable(table: number): boolean {
  return table >= SOURCE_TABLE_BASE && table <= RESERVED_TABLE_LAST;
}

export class Checker {
  readonly problems: ConfigProblem[] = [];

  fail(path: string, message: string): undefined {
    this.problems.push({ path, message });
    return undefined;
  }

  object(v: unknown, path: string, allowed: readonly string[]): Obj | undefined {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return this.fail(path, 'must be a mapping');
    for (const k of Object.keys(v))
      if (!allowed.includes(k)) this.fail(`${path}.${k}`, `unknown field (allowed: ${allowed.join(', ')})`);
    return v as Obj;
  }

  list(v: unknown, path: string, optional = true): unknown[] {
    if (v === undefined && optional) return [];
    if (!Array.isArray(v)) {
      this.fail(path, 'must be a list');
      return [];
    }
    return v;
  }

  name(v: unknown, path: string): string | undefined {
    if (typeof v !== 'string' || !NAME_RE.test(v)) {
      return this.fail(
        path,
        'must be 1-32 lowercase letters, digits or "-", starting and ending with a letter or digit',
      );
    }
    return detached(v);
  }

  nodeName(v: unknown, path: string): string | undefined {
    if (typeof v !== 'string' || !NODE_NAME_RE.test(v))
      return this.fail(
        path,
        'must be a Kubernetes node name: lowercase letters, digits, "-" and ".", up to 253, each dot-separated part starting and ending with a letter or digit',
      );
    return detached(v);
  }

  int(v: unknown, path: string, min: number, max: number, dflt?: number): number | undefined {
    if (v === undefined && dflt !== undefined) return dflt;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      return this.fail(path, `must be an integer from ${min} to ${max}`);
    }
    return v;
  }

  ip4(v: unknown, path: string): string | undefined {
    if (typeof v !== 'string' || !isIp4(v)) return this.fail(path, 'must be an IPv4 address');
    return detached(v);
  }

  ip6(v: unknown, path: string): string | undefined {
    if (typeof v !== 'string' || !isIp6(v)) return this.fail(path, 'must be an IPv6 address');
    return canonicalIp6(v);
  }

  ip4Prefix(v: unknown, path: string, requireNetwork: boolean): Ip4Prefix | undefined {
    const p = typeof v === 'string' ? parseIp4Prefix(v) : undefined;
    if (!p) return this.fail(path, 'must be an IPv4 prefix like 10.0.0.0/24');
    if (requireNetwork && ip4Network(p) !== p.address) {
      return this.fail(path, `host bits set: the network is ${ip4Network(p)}/${p.len}`);
    }
    return p.address.length < 13 ? p : { address: detached(p.address), len: p.len };
  }

  ip6Prefix(v: unknown, path: string, requireNetwork = false): Ip6Prefix | undefined {
    const p = typeof v === 'string' ? parseIp6Prefix(v) : undefined;
    if (!p) return this.fail(path, 'must be an IPv6 prefix like fc00:1::/48');
    if (requireNetwork && ip6HasHostBits(p))
      return this.fail(path, `host bits set: the network is ${ip6Network(p)}/${p.len}`);
    return p;
  }

  /** Permission bits written as a quoted octal string ('0660', '660' or '0o660'). */
  mode(v: unknown, path: string, dflt: string): number | undefined {
    const text = v === undefined ? dflt : v;
    if (typeof text === 'number') {
      return this.fail(
        path,
        `must be a quoted octal string like '0660' (YAML reads ${text} as a decimal number)`,
      );
    }
    const m = typeof text === 'string' ? /^(?:0o?)?([0-7]{3,4})$/.exec(text) : null;
    if (!m) return this.fail(path, "must be an octal mode like '0660'");
    const mode = parseInt(m[1] as string, 8);
    if (mode > 0o777) return this.fail(path, 'may not set setuid, setgid or sticky bits');
    return mode;
  }

  /** A numeric uid or gid; absent stays absent. */
  id(v: unknown, path: string): number | undefined | null {
    if (v === undefined) return undefined;
    if (typeof v === 'string') {
      this.fail(
        path,
        `must be a number: the agent cannot resolve ${JSON.stringify(v)} (on the host: id -u NAME, getent group NAME)`,
      );
      return null;
    }
    return this.int(v, path, 0, 0xfffffffe) ?? null;
  }

  unique<T>(seen: Map<T, string>, value: T | undefined, path: string, what: string): void {
    if (value === undefined) return;
    const first = seen.get(value);
    if (first !== undefined) this.fail(path, `${what} ${String(value)} is already used by ${first}`);
    else seen.set(value, path);
  }
}

export function validateConfig(raw: unknown, source?: string): AgentConfig {
  const c = new Checker();
  const root = c.object(raw ?? {}, '(root)', fieldsUnder(''));
  if (!root) throw new ConfigError(c.problems, source);

  const node = validateNode(c, root.node);
  const services = root.services === undefined ? undefined : validateServices(c, root.services);
  const vpcs = validateVpcs(c, root.vpcs, node, services);
  // References to a VPC that is declared but invalid are not errors of their own: its problems
  // are already reported, and "no VPC named x" would mislead.
  const declared = new Set(
    (Array.isArray(root.vpcs) ? (root.vpcs as unknown[]) : [])
      .map((v) => (v as Obj | null)?.name)
      .filter((n): n is string => typeof n === 'string'),
  );
  const ports = validatePorts(c, root.ports, vpcs, declared, node?.vhostUser, node, services?.ip6);
  const remoteRoutes = validateRemoteRoutes(c, root.remoteRoutes, vpcs, node, declared, {
    local: localAddressesOf(ports),
    servicesGateway: services?.gateway,
    servicesIp6: services?.ip6,
  });
  if (node && services?.ip6) checkServicesIp6AgainstNode(c, services.ip6, node);

  if (c.problems.length || !node) throw new ConfigError(c.problems, source);
  return { node, vpcs, ports, remoteRoutes, services };
}

/** The service bridge's IPv6 side lives in table 0 beside the underlay, the locator and the BSIDs. */
export function checkServicesIp6AgainstNode(c: Checker, ip6: ServicesIp6Config, node: NodeConfig): void {
  for (const [field, q] of [
    ['gateway', ip6.gateway],
    ['vmAddressRange', ip6.vmAddressRange],
  ] as const) {
    const reserved = reservedIp6Overlap(q, node);
    if (reserved) c.fail(`services.ip6.${field}`, reserved);
    for (const allowed of node.srv6.allowedSources)
      if (ip6PrefixesOverlap(q, allowed))
        c.fail(
          `services.ip6.${field}`,
          `overlaps ${ip6Network(allowed)}/${allowed.len} (node.srv6.allowedSources): the uplink would let those sources in`,
        );
  }
}

export function validateNode(c: Checker, raw: unknown): NodeConfig | undefined {
  if (raw === undefined) return c.fail('node', 'is required');
  const n = c.object(raw, 'node', fieldsUnder('node'));
  if (!n) return undefined;
  const name = c.nodeName(n.name, 'node.name');
  const u =
    n.underlay === undefined
      ? c.fail('node.underlay', 'is required')
      : c.object(n.underlay, 'node.underlay', fieldsUnder('node.underlay'));
  const s =
    n.srv6 === undefined
      ? c.fail('node.srv6', 'is required')
      : c.object(n.srv6, 'node.srv6', fieldsUnder('node.srv6'));
  if (!u || !s) return undefined;
  const iface =
    typeof u.interface === 'string' && u.interface.length > 0
      ? detached(u.interface)
      : c.fail('node.underlay.interface', 'must name an existing VPP interface');
  const addr = c.ip6Prefix(u.address, 'node.underlay.address');
  const gateway = c.ip6(u.gateway, 'node.underlay.gateway');
  const neighborMaxAgeSeconds = c.int(
    u.neighborMaxAgeSeconds,
    'node.underlay.neighborMaxAgeSeconds',
    0,
    86400,
    UNDERLAY_NEIGHBOR_DEFAULTS.maxAgeSeconds,
  );
  if (addr && gateway && !ip6InPrefix(gateway, addr))
    c.fail('node.underlay.gateway', `is not inside ${addr.address}/${addr.len}`);
  const mtu = c.int(u.mtu, 'node.underlay.mtu', 1280, 9216, NODE_DEFAULTS.underlayMtu);
  const vhostUser = validateVhostUserDefaults(c, n.vhostUser);
  const locator = c.ip6Prefix(s.locator, 'node.srv6.locator');
  if (locator && locator.len > 112)
    c.fail('node.srv6.locator', 'must be /112 or shorter to leave room for SIDs');
  if (locator && addr && ip6InPrefix(addr.address, locator)) {
    c.fail('node.srv6.locator', 'contains the underlay address: a SID can never equal an interface address');
  }
  const encapSource =
    s.encapSource === undefined ? addr?.address : c.ip6(s.encapSource, 'node.srv6.encapSource');
  const hopLimit = c.int(s.hopLimit, 'node.srv6.hopLimit', 1, 255, 64);
  let bsidPrefix: Ip6Prefix | undefined;
  if (s.bsidPrefix !== undefined) bsidPrefix = c.ip6Prefix(s.bsidPrefix, 'node.srv6.bsidPrefix');
  else if (locator && locator.len >= 16 && locator.len <= 112) {
    // Default: the locator with the low byte of its last 16 prefix bits set, one level longer
    // (fc00:1::/48 → fc00:1:ff::/64): outside the locator, so never routed here from the underlay.
    const net = ip6ToBigInt(locator.address) | (0xffn << BigInt(128 - locator.len));
    bsidPrefix = { address: bigIntToIp6(net), len: locator.len + 16 };
  }
  if (bsidPrefix && bsidPrefix.len > 120) c.fail('node.srv6.bsidPrefix', 'must be /120 or shorter');
  if (bsidPrefix && locator && ip6PrefixesOverlap(bsidPrefix, locator)) {
    c.fail(
      'node.srv6.bsidPrefix',
      'overlaps the locator: remote hypervisors could steer traffic into local policies',
    );
  }
  const allowedSources = validateAllowedSources(c, s.allowedSources, addr);
  if (neighborMaxAgeSeconds === undefined) return undefined;
  if (
    !allowedSources ||
    !name ||
    !iface ||
    !addr ||
    !gateway ||
    mtu === undefined ||
    !vhostUser ||
    !locator ||
    !encapSource ||
    hopLimit === undefined ||
    !bsidPrefix
  )
    return undefined;
  return {
    name,
    underlay: {
      interface: iface,
      address: addr.address,
      prefixLength: addr.len,
      gateway,
      neighborMaxAgeSeconds,
      mtu,
    },
    vhostUser,
    srv6: { locator, encapSource, hopLimit, bsidPrefix, allowedSources },
  };
}

/**
 * The SRv6 ingress filter's sources: as written, aggregated (aggregateIp6), or the underlay
 * address's own prefix. Undefined when wrong (reported).
 */
function validateAllowedSources(
  c: Checker,
  raw: unknown,
  underlay: Ip6Prefix | undefined,
): Ip6Prefix[] | undefined {
  const path = 'node.srv6.allowedSources';
  if (raw === undefined) return underlay && [{ address: ip6Network(underlay), len: underlay.len }];
  const before = c.problems.length;
  const list = c.list(raw, path, false);
  if (list.length === 0 && Array.isArray(raw))
    return c.fail(path, "must list at least one prefix (['::/0'] accepts every source)");
  const prefixes = list.map((v, i) => c.ip6Prefix(v, `${path}[${i}]`, true));
  if (c.problems.length > before) return undefined;
  return aggregateIp6(prefixes as Ip6Prefix[]);
}

export function validateVhostUserDefaults(c: Checker, raw: unknown): VhostUserDefaults | undefined {
  const v = raw === undefined ? {} : c.object(raw, 'node.vhostUser', fieldsUnder('node.vhostUser'));
  if (!v) return undefined;
  const uid = c.id(v.uid, 'node.vhostUser.uid');
  const gid = c.id(v.gid, 'node.vhostUser.gid');
  const mode = socketMode(c, v.mode, 'node.vhostUser.mode');
  const directory =
    v.directory === undefined
      ? NODE_DEFAULTS.vhostSocketDirectory
      : validateAbsolutePath(c, v.directory, 'node.vhostUser.directory', 'directory');
  const directoryMode = c.mode(
    v.directoryMode,
    'node.vhostUser.directoryMode',
    NODE_DEFAULTS.vhostDirectoryMode,
  );
  if (uid === null || gid === null || mode === undefined || directoryMode === undefined || !directory)
    return undefined;
  return { uid, gid, mode, directoryMode, directory };
}

/**
 * A vhost-user socket's mode: read and write for owner and group at most. Whoever may connect
 * while the VM's QEMU is away is its frontend: a 0666 socket lets any local user be the VM.
 */
function socketMode(c: Checker, v: unknown, path: string): number | undefined {
  const mode = c.mode(v, path, NODE_DEFAULTS.vhostSocketMode);
  if (mode !== undefined && (mode & ~0o660) !== 0)
    return c.fail(
      path,
      `${mode.toString(8).padStart(4, '0')} is more than 0660: other users (or execute bits) may not reach a VM's socket`,
    );
  return mode;
}

export function validateServices(c: Checker, raw: unknown): ServicesConfig | undefined {
  const s = c.object(raw ?? {}, 'services', fieldsUnder('services'));
  if (!s) return undefined;
  let table = c.int(s.table, 'services.table', 1, 0xfffffffe, SERVICE_DEFAULTS.table);
  if (table !== undefined && isSourceTable(table)) table = c.fail('services.table', SOURCE_TABLE_MESSAGE);
  const bridgeDomain = c.int(
    s.bridgeDomain,
    'services.bridgeDomain',
    1,
    0xffffff,
    SERVICE_DEFAULTS.bridgeDomain,
  );
  const gateway = c.ip4Prefix(s.gateway ?? SERVICE_DEFAULTS.gateway, 'services.gateway', false);
  const range = c.ip4Prefix(
    s.vmAddressRange ?? SERVICE_DEFAULTS.vmAddressRange,
    'services.vmAddressRange',
    true,
  );
  if (range && range.len > 30) c.fail('services.vmAddressRange', 'must be /30 or shorter');
  const metadataAddress = c.ip4(
    s.metadataAddress ?? SERVICE_DEFAULTS.metadataAddress,
    'services.metadataAddress',
  );
  const dnsAddress = s.dnsAddress === undefined ? undefined : c.ip4(s.dnsAddress, 'services.dnsAddress');
  const dhcpServer = s.dhcpServer === undefined ? undefined : c.ip4(s.dhcpServer, 'services.dhcpServer');
  const addressHoldSeconds = c.int(
    s.addressHoldSeconds,
    'services.addressHoldSeconds',
    0,
    86400,
    SERVICE_DEFAULTS.addressHoldSeconds,
  );
  const networks = validateServiceNetworks(c, s.networks, { dnsAddress, dhcpServer });
  const vmLimits = validateVmLimits(c, s.vmLimits);
  const ip6 = s.ip6 === undefined ? undefined : validateServicesIp6(c, s.ip6, range, dnsAddress);
  const ip6Failed = s.ip6 !== undefined && ip6 === undefined;
  if (gateway && range && ip4PrefixesOverlap(gateway, range))
    c.fail('services.vmAddressRange', 'overlaps the service bridge subnet');
  for (const [field, a] of [
    ['metadataAddress', metadataAddress],
    ['dnsAddress', dnsAddress],
    ['dhcpServer', dhcpServer],
  ] as const) {
    if (a && gateway && !ip4InPrefix(a, gateway))
      c.fail(
        `services.${field}`,
        `is not inside the service bridge subnet ${ip4Network(gateway)}/${gateway.len}`,
      );
    if (a && gateway && a === gateway.address) c.fail(`services.${field}`, 'is the bridge gateway address');
  }
  if (
    table === undefined ||
    bridgeDomain === undefined ||
    !gateway ||
    !range ||
    !metadataAddress ||
    addressHoldSeconds === undefined ||
    !vmLimits ||
    ip6Failed
  )
    return undefined;
  return {
    ip6,
    table,
    bridgeDomain,
    gateway,
    vmAddressRange: range,
    metadataAddress,
    dnsAddress,
    dhcpServer,
    addressHoldSeconds,
    networks,
    vmLimits,
  };
}

/**
 * services.ip6: the bridge's IPv6 prefix with the metadata and DNS addresses in it, and the VMs'
 * IPv6 service addresses, which take the host numbers of the IPv4 range (so it must hold as many).
 */
function validateServicesIp6(
  c: Checker,
  raw: unknown,
  range4: Ip4Prefix | undefined,
  dnsAddress4: string | undefined,
): ServicesIp6Config | undefined {
  const s = c.object(raw ?? {}, 'services.ip6', fieldsUnder('services.ip6'));
  if (!s) return undefined;
  const before = c.problems.length;
  let gateway = c.ip6Prefix(s.gateway ?? SERVICE_IP6_DEFAULTS.gateway, 'services.ip6.gateway');
  if (gateway && (gateway.len < 48 || gateway.len > 126))
    gateway = c.fail('services.ip6.gateway', 'must be a /48 to /126');
  let range = c.ip6Prefix(
    s.vmAddressRange ?? SERVICE_IP6_DEFAULTS.vmAddressRange,
    'services.ip6.vmAddressRange',
    true,
  );
  if (range && range4 && 128 - range.len < 32 - range4.len)
    range = c.fail(
      'services.ip6.vmAddressRange',
      `must hold as many addresses as services.vmAddressRange (a /${128 - (32 - range4.len)} or shorter): a VM's IPv6 service address has its IPv4 one's host number`,
    );
  const metadataAddress = c.ip6(
    s.metadataAddress ?? SERVICE_IP6_DEFAULTS.metadataAddress,
    'services.ip6.metadataAddress',
  );
  const dnsAddress =
    s.dnsAddress !== undefined
      ? c.ip6(s.dnsAddress, 'services.ip6.dnsAddress')
      : dnsAddress4 !== undefined
        ? SERVICE_IP6_DEFAULTS.dnsAddress
        : undefined;
  for (const [field, q] of [
    ['gateway', gateway],
    ['vmAddressRange', range],
  ] as const) {
    if (!q) continue;
    const reserved = reservedIp6Overlap(q, undefined);
    if (reserved) c.fail(`services.ip6.${field}`, reserved);
  }
  if (gateway && range && ip6PrefixesOverlap(gateway, range))
    c.fail('services.ip6.vmAddressRange', 'overlaps the service bridge prefix (services.ip6.gateway)');
  for (const [field, a] of [
    ['metadataAddress', metadataAddress],
    ['dnsAddress', dnsAddress],
  ] as const) {
    if (a === undefined || !gateway) continue;
    if (!ip6InPrefix(a, gateway))
      c.fail(
        `services.ip6.${field}`,
        `is not inside the service bridge prefix ${ip6Network(gateway)}/${gateway.len}`,
      );
    else if (a === gateway.address) c.fail(`services.ip6.${field}`, 'is the bridge gateway address');
  }
  if (metadataAddress !== undefined && metadataAddress === dnsAddress)
    c.fail('services.ip6.dnsAddress', 'is the metadata address');
  if (c.problems.length > before || !gateway || !range || metadataAddress === undefined) return undefined;
  return { gateway, vmAddressRange: range, metadataAddress, dnsAddress };
}

function validateVmLimits(c: Checker, raw: unknown): ServiceVmLimits | undefined {
  const l = c.object(raw ?? {}, 'services.vmLimits', fieldsUnder('services.vmLimits'));
  if (!l) return undefined;
  const rateKbps = c.int(
    l.rateKbps,
    'services.vmLimits.rateKbps',
    0,
    10_000_000,
    SERVICE_DEFAULTS.vmRateKbps,
  );
  // Below one full-size packet a VM could not send one at all.
  const burstBytes = c.int(
    l.burstBytes,
    'services.vmLimits.burstBytes',
    1500,
    16 << 20,
    SERVICE_DEFAULTS.vmBurstBytes,
  );
  const natSessions = c.int(
    l.natSessions,
    'services.vmLimits.natSessions',
    16,
    65536,
    SERVICE_DEFAULTS.vmNatSessions,
  );
  const udpSessionIdleSeconds = c.int(
    l.udpSessionIdleSeconds,
    'services.vmLimits.udpSessionIdleSeconds',
    5,
    600,
    SERVICE_DEFAULTS.udpSessionIdleSeconds,
  );
  if (
    rateKbps === undefined ||
    burstBytes === undefined ||
    natSessions === undefined ||
    udpSessionIdleSeconds === undefined
  )
    return undefined;
  return { rateKbps, burstBytes, natSessions, udpSessionIdleSeconds };
}

/** A CNI network name, as the spec allows it. */
const CNI_NETWORK_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,252}$/;

function validateServiceNetworks(
  c: Checker,
  raw: unknown,
  addresses: { readonly dnsAddress: string | undefined; readonly dhcpServer: string | undefined },
): ServiceNetworks | undefined {
  if (raw === undefined) return undefined;
  const n = c.object(raw, 'services.networks', fieldsUnder('services.networks'));
  if (!n) return undefined;
  const seen = new Map<string, string>();
  const one = (field: 'metadata' | 'dns' | 'dhcp'): string | undefined => {
    const v = n[field];
    if (v === undefined) return undefined;
    const path = `services.networks.${field}`;
    if (typeof v !== 'string' || !CNI_NETWORK_NAME.test(v))
      return c.fail(
        path,
        'must be a CNI network name (letters, digits, "_", "." and "-", starting with a letter or digit)',
      );
    if (field === 'dns' && addresses.dnsAddress === undefined)
      return c.fail(path, 'names a DNS network, but services.dnsAddress is not set');
    if (field === 'dhcp' && addresses.dhcpServer === undefined)
      return c.fail(path, 'names a DHCP network, but services.dhcpServer is not set');
    const other = seen.get(v);
    if (other !== undefined)
      return c.fail(path, `is also services.networks.${other}: one network per service`);
    seen.set(v, field);
    return detached(v);
  };
  return { metadata: one('metadata'), dns: one('dns'), dhcp: one('dhcp') };
}

export function validateVpcs(
  c: Checker,
  raw: unknown,
  node: NodeConfig | undefined,
  services: ServicesConfig | undefined,
): VpcConfig[] {
  const out: VpcConfig[] = [];
  const names = new Map<string, string>();
  const ids = new Map<number, string>();
  const tables = new Map<number, string>();
  const sids = new Map<string, string>();
  // The first VPC with an IPv6 subnet, when the locator is too long for its DT6 SID.
  let ip6LocatorTooLong: string | undefined;
  c.list(raw, 'vpcs').forEach((item, i) => {
    const path = `vpcs[${i}]`;
    const v = c.object(item, path, fieldsUnder('vpcs[]'));
    if (!v) return;
    const name = c.name(v.name, `${path}.name`);
    const id = c.int(v.id, `${path}.id`, 1, 0xffffff);
    const table = c.int(v.table ?? id, `${path}.table`, 1, 0xfffffffe);
    if (table !== undefined && services && table === services.table)
      c.fail(`${path}.table`, 'is the services table');
    else if (table !== undefined && isSourceTable(table)) c.fail(`${path}.table`, SOURCE_TABLE_MESSAGE);
    c.unique(names, name, `${path}.name`, 'name');
    c.unique(ids, id, `${path}.id`, 'id');
    c.unique(tables, table, `${path}.table`, 'table');
    let sid: string | undefined;
    if (v.sid !== undefined) sid = c.ip6(v.sid, `${path}.sid`);
    else if (node && id !== undefined) sid = ip6AddressInPrefix(node.srv6.locator, BigInt(id));
    if (sid && node) {
      if (!ip6InPrefix(sid, node.srv6.locator))
        c.fail(`${path}.sid`, `is outside the locator ${node.srv6.locator.address}/${node.srv6.locator.len}`);
      if (ip6InPrefix(sid, node.srv6.bsidPrefix)) c.fail(`${path}.sid`, 'is inside the BSID prefix');
    }
    c.unique(sids, sid, `${path}.sid`, 'SID');
    const subnets: Ip4Prefix[] = [];
    const subnets6: Ip6Prefix[] = [];
    const rawSubnets = c.list(v.subnets, `${path}.subnets`, false);
    if (rawSubnets.length === 0 && Array.isArray(v.subnets))
      c.fail(`${path}.subnets`, 'needs at least one subnet');
    // The families as written, so that a malformed subnet still says which side it is on.
    const written6 = rawSubnets.filter(isWrittenIp6).length;
    const hasIp4 = rawSubnets.length > written6;
    const hasIp6 = written6 > 0;
    rawSubnets.forEach((s, j) => {
      if (isWrittenIp6(s)) {
        const p = validateSubnet6(c, s, `${path}.subnets[${j}]`, node, services?.ip6);
        if (!p) return;
        const clash = subnets6.find((q) => q.address === p.address);
        if (clash) return c.fail(`${path}.subnets[${j}]`, `overlaps ${clash.address}/${clash.len}`);
        subnets6.push(p);
        return;
      }
      const p = c.ip4Prefix(s, `${path}.subnets[${j}]`, true);
      if (!p) return;
      if (p.len > 30) return c.fail(`${path}.subnets[${j}]`, 'must be /30 or shorter');
      const clash = subnets.find((q) => ip4PrefixesOverlap(p, q));
      if (clash) return c.fail(`${path}.subnets[${j}]`, `overlaps ${clash.address}/${clash.len}`);
      subnets.push(p);
    });
    let gateway: string | undefined;
    if (hasIp4) {
      gateway = c.ip4(v.gateway, `${path}.gateway`);
      if (gateway && subnets.length && !subnets.some((s) => isHostOf(gateway as string, s))) {
        c.fail(`${path}.gateway`, 'must be a host address inside one of the subnets');
      }
    } else if (hasIp6 && v.gateway !== undefined) {
      c.fail(`${path}.gateway`, 'is the IPv4 gateway, but the VPC has no IPv4 subnet');
    }
    const ipv6Only = (field: string): void => {
      if (!hasIp6 && rawSubnets.length && v[field] !== undefined)
        c.fail(`${path}.${field}`, 'is for IPv6, but the VPC has no IPv6 subnet');
    };
    ipv6Only('gatewayLinkLocal');
    ipv6Only('sid6');
    let gatewayLinkLocal: string | undefined = VPC_DEFAULTS.gatewayLinkLocal;
    if (hasIp6 && v.gatewayLinkLocal !== undefined) {
      gatewayLinkLocal = c.ip6(v.gatewayLinkLocal, `${path}.gatewayLinkLocal`);
      if (gatewayLinkLocal && !ip6InPrefix(gatewayLinkLocal, LINK_LOCAL6))
        gatewayLinkLocal = c.fail(
          `${path}.gatewayLinkLocal`,
          'must be a link-local unicast address (fe80::/10)',
        );
    }
    let sid6: string | undefined;
    if (hasIp6) {
      const locator = node?.srv6.locator;
      if (locator && locator.len > MAX_IP6_LOCATOR_LEN) ip6LocatorTooLong ??= path;
      if (v.sid6 !== undefined) sid6 = c.ip6(v.sid6, `${path}.sid6`);
      else if (locator && locator.len <= MAX_IP6_LOCATOR_LEN && id !== undefined)
        sid6 = ip6AddressInPrefix(locator, DT6_SID_OFFSET + BigInt(id));
      if (sid6 && locator && node) {
        if (!ip6InPrefix(sid6, locator))
          c.fail(`${path}.sid6`, `is outside the locator ${locator.address}/${locator.len}`);
        if (ip6InPrefix(sid6, node.srv6.bsidPrefix)) c.fail(`${path}.sid6`, 'is inside the BSID prefix');
      }
      // One name space with the End.DT4 SIDs: End.DT4 drops inner IPv6, End.DT6 inner IPv4.
      c.unique(sids, sid6, `${path}.sid6`, 'SID');
    }
    const mtu = validateVpcMtu(c, v.mtu, `${path}.mtu`, node);
    if (
      name &&
      id !== undefined &&
      table !== undefined &&
      sid &&
      (!hasIp4 || gateway) &&
      (!hasIp6 || (sid6 && gatewayLinkLocal)) &&
      mtu !== undefined &&
      subnets.length + subnets6.length === rawSubnets.length &&
      rawSubnets.length
    ) {
      out.push({
        name,
        id,
        table,
        sid,
        subnets,
        gateway,
        subnets6,
        sid6,
        gatewayLinkLocal: gatewayLinkLocal ?? VPC_DEFAULTS.gatewayLinkLocal,
        mtu,
      });
    }
  });
  if (ip6LocatorTooLong !== undefined && node)
    c.fail(
      'node.srv6.locator',
      `must be /${MAX_IP6_LOCATOR_LEN} or shorter: ${ip6LocatorTooLong} has an IPv6 subnet, and its End.DT6 SID is the locator + 2^24 + the VPC's SID index`,
    );
  return out;
}

/** A subnet or route written in IPv6: IPv4 text never holds a colon. */
function isWrittenIp6(v: unknown): boolean {
  return typeof v === 'string' && v.includes(':');
}

function validateSubnet6(
  c: Checker,
  v: unknown,
  path: string,
  node: NodeConfig | undefined,
  servicesIp6: ServicesIp6Config | undefined,
): Ip6Prefix | undefined {
  const p = c.ip6Prefix(v, path);
  if (!p) return undefined;
  // SLAAC and the EUI-64 default addresses need exactly 64 host bits.
  if (p.len !== 64) return c.fail(path, 'an IPv6 subnet must be a /64');
  if (ip6Network(p) !== p.address) return c.fail(path, `host bits set: the network is ${ip6Network(p)}/64`);
  const reserved = reservedIp6Overlap(p, node) ?? serviceIp6Problem(p, servicesIp6, 'overlap');
  if (reserved) return c.fail(path, reserved);
  return p;
}

/** A VPC's MTU: what fits in the underlay once encapsulated, by default all of it. */
function validateVpcMtu(
  c: Checker,
  v: unknown,
  path: string,
  node: NodeConfig | undefined,
): number | undefined {
  if (!node) return v === undefined ? 0 : c.int(v, path, MIN_TENANT_MTU, 9216 - SRV6_ENCAP_OVERHEAD);
  const fits = node.underlay.mtu - SRV6_ENCAP_OVERHEAD;
  if (v === undefined) return fits;
  if (typeof v === 'number' && Number.isInteger(v) && v > fits && v <= 65535) {
    return c.fail(
      path,
      `${v} does not fit the underlay: node.underlay.mtu ${node.underlay.mtu} − ${SRV6_ENCAP_OVERHEAD} bytes of SRv6 encapsulation leaves ${fits}`,
    );
  }
  return c.int(v, path, MIN_TENANT_MTU, fits);
}

function isHostOf(addr: string, p: Ip4Prefix): boolean {
  if (!ip4InPrefix(addr, p)) return false;
  const host = ip4ToInt(addr) & (~ip4Mask(p.len) >>> 0);
  const hostMax = ~ip4Mask(p.len) >>> 0;
  return host !== 0 && host >>> 0 !== hostMax;
}

export function validatePorts(
  c: Checker,
  raw: unknown,
  vpcs: readonly VpcConfig[],
  declared: ReadonlySet<string>,
  vhostDefaults: VhostUserDefaults | undefined,
  node?: NodeConfig,
  servicesIp6?: ServicesIp6Config,
): PortConfig[] {
  const out: PortConfig[] = [];
  const names = new Map<string, string>();
  const ips = new Map<string, string>();
  const ips6 = new Map<string, string>();
  const macs = new Map<string, string>();
  const attachments = new Map<string, string>();
  const allowed: { path: string; vpc: VpcConfig; prefix: AllowedPrefix }[] = [];
  c.list(raw, 'ports').forEach((item, i) => {
    const path = `ports[${i}]`;
    const p = c.object(item, path, fieldsUnder('ports[]'));
    if (!p) return;
    const name = c.name(p.name, `${path}.name`);
    c.unique(names, name, `${path}.name`, 'name');
    const vpc = vpcs.find((v) => v.name === p.vpc);
    if (!vpc && !declared.has(p.vpc as string))
      c.fail(`${path}.vpc`, `no VPC named ${JSON.stringify(p.vpc)}`);
    let mac: string | undefined;
    if (typeof p.mac !== 'string' || !isMac(p.mac))
      c.fail(`${path}.mac`, 'must be a MAC address like 52:54:00:12:34:56');
    else if ((parseInt(p.mac.slice(0, 2), 16) & 1) === 1) c.fail(`${path}.mac`, 'is a multicast MAC');
    else mac = detached(p.mac.toLowerCase());
    c.unique(macs, mac, `${path}.mac`, 'MAC');
    // Required with an IPv4 subnet; with an unknown VPC (a record alone) only its form is checked.
    let ip: string | undefined;
    if (vpc && vpc.subnets.length === 0) {
      if (p.ip !== undefined) c.fail(`${path}.ip`, `is IPv4, but VPC ${vpc.name} has no IPv4 subnet`);
    } else if (vpc || p.ip !== undefined) ip = c.ip4(p.ip, `${path}.ip`);
    if (ip && vpc) {
      if (!vpc.subnets.some((s) => isHostOf(ip, s)))
        c.fail(`${path}.ip`, `is not a host address in a subnet of VPC ${vpc.name}`);
      else if (ip === vpc.gateway) c.fail(`${path}.ip`, `is the gateway of VPC ${vpc.name}`);
      c.unique(ips, `${vpc.name}/${ip}`, `${path}.ip`, 'address');
    }
    const ip6 = validatePortIp6(c, p.ip6, `${path}.ip6`, vpc, mac, node);
    if (ip6 && vpc) c.unique(ips6, `${vpc.name}/${ip6}`, `${path}.ip6`, 'address');
    let attach = validateAttachment(c, p.attach, `${path}.attach`, vhostDefaults);
    if (attach?.type === 'interface' && attach.name.startsWith('vppnet:'))
      // keys.ts's TAG_PREFIX: vppnet's own interfaces go by their tags (the service bridge's BVI,
      // gateways, other ports); a port may not name one.
      attach = c.fail(`${path}.attach.name`, "names one of vppnet's own interfaces (vppnet:…)");
    else if (attach?.type === 'interface' && node && attach.name === node.underlay.interface)
      attach = c.fail(
        `${path}.attach.name`,
        `is the underlay interface (node.underlay.interface): a VM there would sit on the fleet's network, its table and addresses replaced`,
      );
    // A socket is one VM's however its access is set.
    const attachKey =
      attach?.type === 'vhost-user' ? `vhost-user socket ${attach.socket}` : JSON.stringify(attach);
    if (attach) c.unique(attachments, attachKey, `${path}.attach`, 'attachment');
    let sourceCheck: boolean | undefined = true;
    if (p.sourceCheck !== undefined && typeof p.sourceCheck !== 'boolean')
      sourceCheck = c.fail(`${path}.sourceCheck`, 'must be true or false');
    else if (p.sourceCheck === false) sourceCheck = false;
    const allowedPrefixes = validateAllowedPrefixes(
      c,
      p.allowedPrefixes,
      `${path}.allowedPrefixes`,
      vpc,
      node,
      servicesIp6,
    );
    if (vpc && allowedPrefixes)
      allowedPrefixes.forEach((a, j) =>
        allowed.push({ path: `${path}.allowedPrefixes[${j}]`, vpc, prefix: a }),
      );
    if (
      name &&
      vpc &&
      mac &&
      (ip || vpc.subnets.length === 0) &&
      (ip6 || vpc.subnets6.length === 0) &&
      attach &&
      sourceCheck !== undefined &&
      allowedPrefixes
    )
      out.push({ name, vpc: vpc.name, mac, ip, ip6, attach, sourceCheck, allowedPrefixes });
  });
  // Once every port's addresses are known: an allowed prefix is routed to its port, so it may not
  // be another route of the VPC's own (the gateway, a subnet, a VM's address) nor claimed twice.
  const claimed = new Map<string, string>();
  for (const { path, vpc, prefix } of allowed) {
    const text = `${prefix.address}/${prefix.len}`;
    const host = isHostPrefix(prefix, prefix.family);
    const holder = host ? (prefix.family === 4 ? ips : ips6).get(`${vpc.name}/${prefix.address}`) : undefined;
    if (holder !== undefined) c.fail(path, `${text} is the address of ${holder.replace(/\.ip6?$/, '')}`);
    else if (prefix.family === 4 && host && prefix.address === vpc.gateway)
      c.fail(path, `${text} is the gateway of VPC ${vpc.name}`);
    else if (
      (prefix.family === 4 ? vpc.subnets : vpc.subnets6).some(
        (s) =>
          s.len === prefix.len &&
          (prefix.family === 4 ? ip4InPrefix(prefix.address, s) : ip6InPrefix(prefix.address, s)),
      )
    )
      c.fail(path, `${text} is a subnet of VPC ${vpc.name}: its VMs are routed by their own addresses`);
    else c.unique(claimed, `${vpc.name} ${text}`, path, 'allowed prefix');
  }
  return out;
}

/**
 * A port's allowed prefixes: network form, of a family its VPC has, not inside a range that is
 * never a VM's (lanes.ts). Undefined when any is wrong (each reported).
 */
function validateAllowedPrefixes(
  c: Checker,
  raw: unknown,
  path: string,
  vpc: VpcConfig | undefined,
  node: NodeConfig | undefined,
  servicesIp6: ServicesIp6Config | undefined,
): AllowedPrefix[] | undefined {
  const before = c.problems.length;
  const out: AllowedPrefix[] = [];
  c.list(raw, path).forEach((v, j) => {
    const at = `${path}[${j}]`;
    const family = isWrittenIp6(v) ? 6 : 4;
    const p = family === 4 ? c.ip4Prefix(v, at, true) : c.ip6Prefix(v, at, true);
    if (!p) return;
    const reserved =
      reservedRangeHolding(p, family, node) ??
      (family === 6 ? serviceIp6Problem(p, servicesIp6, 'inside') : undefined);
    if (reserved) return c.fail(at, reserved);
    if (vpc && (family === 4 ? vpc.subnets : vpc.subnets6).length === 0)
      return c.fail(at, `is IPv${family}, but VPC ${vpc.name} has no IPv${family} subnet`);
    out.push({ address: p.address, len: p.len, family });
  });
  return c.problems.length === before ? out : undefined;
}

/**
 * A port's IPv6 address: as written, inside one of its VPC's /64s, or by default what SLAAC gives
 * the VM (the EUI-64 of its MAC in the first /64). Undefined without an IPv6 subnet, or when wrong.
 */
function validatePortIp6(
  c: Checker,
  v: unknown,
  path: string,
  vpc: VpcConfig | undefined,
  mac: string | undefined,
  node: NodeConfig | undefined,
): string | undefined {
  if (v === undefined) {
    const first = vpc?.subnets6[0];
    return first && mac ? eui64Address(first, mac) : undefined;
  }
  const ip6 = c.ip6(v, path);
  if (!ip6) return undefined;
  const reserved = reservedIp6Overlap({ address: ip6, len: 128 }, node);
  if (reserved) return c.fail(path, reserved);
  if (!vpc) return ip6;
  if (vpc.subnets6.length === 0) return c.fail(path, `is IPv6, but VPC ${vpc.name} has no IPv6 subnet`);
  const subnet = vpc.subnets6.find((s) => ip6InPrefix(ip6, s));
  if (!subnet) return c.fail(path, `is not in an IPv6 subnet of VPC ${vpc.name}`);
  if (ip6IndexInPrefix(ip6, subnet) === 0n)
    return c.fail(path, `is the subnet-router anycast address of ${subnet.address}/${subnet.len}`);
  return ip6;
}

function validateAttachment(
  c: Checker,
  raw: unknown,
  path: string,
  vhostDefaults: VhostUserDefaults | undefined,
): PortAttachment | undefined {
  if (raw === undefined) return c.fail(path, 'is required (type: vhost-user, veth, tap or interface)');
  const base = c.object(raw, path, fieldsUnder('ports[].attach'));
  if (!base) return undefined;
  switch (base.type) {
    case 'vhost-user': {
      c.object(raw, path, ['type', 'socket', 'uid', 'gid', 'mode']);
      const socket = validateSocketPath(c, base.socket, `${path}.socket`, vhostDefaults?.directory);
      const uid = c.id(base.uid, `${path}.uid`);
      const gid = c.id(base.gid, `${path}.gid`);
      const mode = base.mode === undefined ? vhostDefaults?.mode : socketMode(c, base.mode, `${path}.mode`);
      if (!socket || uid === null || gid === null || mode === undefined || !vhostDefaults) return undefined;
      const access: SocketAccess = { uid: uid ?? vhostDefaults.uid, gid: gid ?? vhostDefaults.gid, mode };
      return { type: 'vhost-user', socket, access };
    }
    case 'veth':
    case 'tap': {
      c.object(raw, path, ['type', 'netns', 'ifname']);
      const netns =
        typeof base.netns === 'string' && NETNS_RE.test(base.netns)
          ? detached(base.netns)
          : c.fail(`${path}.netns`, 'must name a network namespace');
      const ifname =
        base.ifname === undefined
          ? 'eth0'
          : typeof base.ifname === 'string' && isLinkName(base.ifname)
            ? detached(base.ifname)
            : c.fail(`${path}.ifname`, 'must be a Linux interface name (1-15 characters)');
      if (!netns || !ifname) return undefined;
      return { type: base.type, netns, ifname };
    }
    case 'interface':
      c.object(raw, path, ['type', 'name']);
      if (typeof base.name !== 'string' || base.name.length === 0)
        return c.fail(`${path}.name`, 'must name an existing VPP interface');
      return { type: 'interface', name: detached(base.name) };
    default:
      return c.fail(`${path}.type`, 'must be one of vhost-user, veth, tap, interface');
  }
}

/** sun_path holds 108 bytes with the NUL; VPP copies sock_filename into it. */
const MAX_SOCKET_PATH = 107;

/**
 * A vhost-user socket: inside the node's socket directory. VPP unlinks the path before it binds
 * (a record naming /run/containerd/containerd.sock as a VM's socket would delete it), so a port
 * may only name a file where nothing but VMs' sockets live.
 */
function validateSocketPath(
  c: Checker,
  v: unknown,
  path: string,
  directory: string | undefined,
): string | undefined {
  const socket = validateAbsolutePath(c, v, path, 'file');
  if (socket === undefined) return undefined;
  if (Buffer.byteLength(socket) > MAX_SOCKET_PATH)
    return c.fail(path, `is longer than a Unix socket path may be (${MAX_SOCKET_PATH} bytes)`);
  if (directory !== undefined && directory !== '/' && !socket.startsWith(`${directory}/`))
    return c.fail(
      path,
      `is outside the node's vhost-user socket directory ${directory} (node.vhostUser.directory): VPP replaces whatever is at the path`,
    );
  return socket;
}

/** An absolute, normalized path: what is checked is what is opened. */
function validateAbsolutePath(
  c: Checker,
  v: unknown,
  path: string,
  what: 'file' | 'directory',
): string | undefined {
  if (typeof v !== 'string' || !v.startsWith('/')) return c.fail(path, 'must be an absolute path');
  if (
    (v.endsWith('/') && v !== '/') ||
    v.split('/').some((part, i) => i > 0 && (part === '' || part === '.' || part === '..'))
  ) {
    return c.fail(path, `must be a normalized path to a ${what} (no //, . or .. parts, no trailing /)`);
  }
  if (what === 'directory' && v === '/') return c.fail(path, 'must not be / itself');
  return detached(v);
}

function validateRemoteRoutes(
  c: Checker,
  raw: unknown,
  vpcs: readonly VpcConfig[],
  node: NodeConfig | undefined,
  declared: ReadonlySet<string>,
  lane: {
    readonly local: LocalAddresses;
    readonly servicesGateway: Ip4Prefix | undefined;
    readonly servicesIp6?: ServicesIp6Config | undefined;
  },
): RemoteRouteConfig[] {
  const out: RemoteRouteConfig[] = [];
  // Per VPC, each prefix (as written: a valid prefix has one spelling) → the index of its route.
  const seen = new Map<VpcConfig, Map<string, number>>();
  // A node may carry 100k remote routes: look VPCs up by name, not by scanning, and check each
  // spelling of a remote SID once (they repeat: one per remote node and VPC), keeping one copy.
  const vpcByName = new Map(vpcs.map((v) => [v.name, v]));
  const checkedSids = new Map<string, CheckedSid>();
  // Per canonical SID, the family of its first route: shared by the spellings of one SID.
  const sidUses = new Map<string, SidUse>();
  c.list(raw, 'remoteRoutes').forEach((item, i) => {
    const path = `remoteRoutes[${i}]`;
    const r = c.object(item, path, fieldsUnder('remoteRoutes[]'));
    if (!r) return;
    const vpc = vpcByName.get(r.vpc as string);
    if (!vpc && !declared.has(r.vpc as string))
      c.fail(`${path}.vpc`, `no VPC named ${JSON.stringify(r.vpc)}`);
    const family = isWrittenIp6(r.prefix) ? 6 : 4;
    let prefix =
      family === 4
        ? c.ip4Prefix(r.prefix, `${path}.prefix`, true)
        : validateRoutePrefix6(c, r.prefix, `${path}.prefix`, node, lane.servicesIp6);
    if (prefix && family === 4) {
      const reserved = reservedIp4Overlap(prefix, vpc?.gateway, lane.servicesGateway);
      if (reserved) prefix = c.fail(`${path}.prefix`, reserved);
    }
    const holder = prefix && vpc ? localPortOf(lane.local, vpc.name, prefix, family) : undefined;
    if (prefix && holder !== undefined) prefix = c.fail(`${path}.prefix`, localWinsMessage(holder, prefix));
    if (prefix && vpc && (family === 4 ? vpc.subnets : vpc.subnets6).length === 0)
      c.fail(`${path}.prefix`, `is IPv${family}, but VPC ${vpc.name} has no IPv${family} subnet`);
    let checked = typeof r.sid === 'string' ? checkedSids.get(r.sid) : undefined;
    if (!checked) {
      const canonical = c.ip6(r.sid, `${path}.sid`);
      if (canonical !== undefined) {
        let use = sidUses.get(canonical);
        if (!use) sidUses.set(canonical, (use = { family: undefined, route: 0 }));
        checked = {
          sid: canonical,
          inLocator: node !== undefined && ip6InPrefix(canonical, node.srv6.locator),
          use,
        };
        checkedSids.set(r.sid as string, checked);
      }
    }
    const sid = checked?.sid;
    if (checked?.inLocator) c.fail(`${path}.sid`, "is inside this node's own locator");
    else if (checked && prefix) {
      // A remote End.DT4 SID drops inner IPv6 and End.DT6 inner IPv4: one SID is one family's.
      const use = checked.use;
      if (use.family === undefined) {
        use.family = family;
        use.route = i;
      } else if (use.family !== family)
        c.fail(
          `${path}.sid`,
          `is the SID of remoteRoutes[${use.route}], an IPv${use.family} route: an IPv${family} route needs the remote node's End.DT${family} SID (DT4: locator + index, DT6: locator + 2^24 + index)`,
        );
    }
    if (prefix && vpc) {
      let routes = seen.get(vpc);
      if (!routes) seen.set(vpc, (routes = new Map<string, number>()));
      // An IPv4 prefix has one spelling when valid; an IPv6 one is compared canonically.
      const text = family === 4 ? (r.prefix as string) : `${prefix.address}/${prefix.len}`;
      const first = routes.get(text);
      if (first !== undefined)
        c.fail(
          `${path}.prefix`,
          `route ${vpc.name} ${prefix.address}/${prefix.len} is already used by remoteRoutes[${first}].prefix`,
        );
      else routes.set(text, i);
    }
    if (vpc && prefix && sid) out.push({ vpc: vpc.name, prefix, family, sid });
  });
  return out;
}

interface SidUse {
  family: 4 | 6 | undefined;
  route: number;
}

interface CheckedSid {
  readonly sid: string;
  readonly inLocator: boolean;
  readonly use: SidUse;
}

function validateRoutePrefix6(
  c: Checker,
  v: unknown,
  path: string,
  node: NodeConfig | undefined,
  servicesIp6: ServicesIp6Config | undefined,
): Ip6Prefix | undefined {
  const p = c.ip6Prefix(v, path, true);
  if (!p) return undefined;
  const reserved = remoteIp6Problem(p, node) ?? serviceIp6Problem(p, servicesIp6, 'inside');
  return reserved ? c.fail(path, reserved) : p;
}
