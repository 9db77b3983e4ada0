/**
 * The check pass over `ports`, each accepted by the schema: in a known VPC, with addresses of its
 * families inside its subnets and unique in it, a unicast MAC, an attachment that is one VM's and
 * not vppnet's own or the underlay's, and allowed prefixes that are not another route of the VPC.
 */
import {
  canonicalIp6,
  ip4InPrefix,
  ip6InPrefix,
  ip6IndexInPrefix,
  type Ip4Prefix,
  type Ip6Prefix,
} from '../net/ip.js';
import { eui64Address } from '../net/eui64.js';
import { isUnicastMac } from '../net/mac.js';
import { detached, type Checker } from './checker.js';
import { socketMode } from './check-node.js';
import { isHostOf, type Item } from './check-vpcs.js';
import { isHostPrefix, reservedIp6Overlap, reservedRangeHolding, serviceIp6Problem } from './lanes.js';
import type {
  AllowedPrefix,
  NodeConfig,
  PortAttachment,
  PortConfig,
  ServicesIp6Config,
  SocketAccess,
  VhostUserDefaults,
  VpcConfig,
} from './model.js';
import { isWrittenIp6, parsedIp4Prefix, parsedIp6Prefix } from './schema/fields.js';
import type { AttachInput, PortInput } from './schema/port.js';

/** A port the schema accepted, its attachment checked against its variant. */
export type PortItem = Item<PortInput & { readonly attach: AttachInput }>;

export function checkPorts(
  c: Checker,
  items: readonly PortItem[],
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
  const vpcByName = new Map(vpcs.map((v) => [v.name, v]));
  for (const { i, v: p } of items) {
    const path = `ports[${i}]`;
    const name = detached(p.name);
    c.unique(names, name, `${path}.name`, 'name');
    const vpc = vpcByName.get(p.vpc);
    if (!vpc && !declared.has(p.vpc)) c.fail(`${path}.vpc`, `no VPC named ${JSON.stringify(p.vpc)}`);
    let mac: string | undefined;
    if (!isUnicastMac(p.mac)) c.fail(`${path}.mac`, 'is a multicast MAC');
    else mac = detached(p.mac.toLowerCase());
    c.unique(macs, mac, `${path}.mac`, 'MAC');
    // Required with an IPv4 subnet; with an unknown VPC (a record alone) only its form is checked.
    let ip: string | undefined;
    if (vpc && vpc.subnets.length === 0) {
      if (p.ip !== undefined) c.fail(`${path}.ip`, `is IPv4, but VPC ${vpc.name} has no IPv4 subnet`);
    } else if (p.ip !== undefined) ip = detached(p.ip);
    else if (vpc) c.fail(`${path}.ip`, 'must be an IPv4 address');
    if (ip && vpc) {
      if (!vpc.subnets.some((s) => isHostOf(ip, s)))
        c.fail(`${path}.ip`, `is not a host address in a subnet of VPC ${vpc.name}`);
      else if (ip === vpc.gateway) c.fail(`${path}.ip`, `is the gateway of VPC ${vpc.name}`);
      c.unique(ips, `${vpc.name}/${ip}`, `${path}.ip`, 'address');
    }
    const ip6 = checkPortIp6(c, p.ip6, `${path}.ip6`, vpc, mac, node);
    if (ip6 && vpc) c.unique(ips6, `${vpc.name}/${ip6}`, `${path}.ip6`, 'address');
    let attach = checkAttachment(c, p.attach, `${path}.attach`, vhostDefaults);
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
    const allowedPrefixes = checkAllowedPrefixes(
      c,
      p.allowedPrefixes ?? [],
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
      vpc &&
      mac &&
      (ip || vpc.subnets.length === 0) &&
      (ip6 || vpc.subnets6.length === 0) &&
      attach &&
      allowedPrefixes
    )
      out.push({
        name,
        vpc: vpc.name,
        mac,
        ip,
        ip6,
        attach,
        sourceCheck: p.sourceCheck ?? true,
        allowedPrefixes,
      });
  }
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
function checkAllowedPrefixes(
  c: Checker,
  written: readonly string[],
  path: string,
  vpc: VpcConfig | undefined,
  node: NodeConfig | undefined,
  servicesIp6: ServicesIp6Config | undefined,
): AllowedPrefix[] | undefined {
  const before = c.problems.length;
  const out: AllowedPrefix[] = [];
  written.forEach((text, j) => {
    const at = `${path}[${j}]`;
    const family = isWrittenIp6(text) ? 6 : 4;
    const p: Ip4Prefix | Ip6Prefix | undefined = family === 4 ? parsedIp4Prefix(text) : parsedIp6Prefix(text);
    if (!p) return;
    const reserved =
      reservedRangeHolding(p, family, node) ??
      (family === 6 ? serviceIp6Problem(p, servicesIp6, 'inside') : undefined);
    if (reserved) return c.fail(at, reserved);
    if (vpc && (family === 4 ? vpc.subnets : vpc.subnets6).length === 0)
      return c.fail(at, `is IPv${family}, but VPC ${vpc.name} has no IPv${family} subnet`);
    out.push({ address: detached(p.address), len: p.len, family });
  });
  return c.problems.length === before ? out : undefined;
}

/**
 * A port's IPv6 address: as written, inside one of its VPC's /64s, or by default what SLAAC gives
 * the VM (the EUI-64 of its MAC in the first /64). Undefined without an IPv6 subnet, or when wrong.
 */
function checkPortIp6(
  c: Checker,
  written: string | undefined,
  path: string,
  vpc: VpcConfig | undefined,
  mac: string | undefined,
  node: NodeConfig | undefined,
): string | undefined {
  if (written === undefined) {
    const first = vpc?.subnets6[0];
    return first && mac ? eui64Address(first, mac) : undefined;
  }
  const ip6 = canonicalIp6(written);
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

function checkAttachment(
  c: Checker,
  a: AttachInput,
  path: string,
  vhostDefaults: VhostUserDefaults | undefined,
): PortAttachment | undefined {
  switch (a.type) {
    case 'vhost-user': {
      const socket = checkSocketPath(c, a.socket, `${path}.socket`, vhostDefaults?.directory);
      const mode = a.mode === undefined ? vhostDefaults?.mode : socketMode(c, a.mode, `${path}.mode`);
      if (!socket || mode === undefined || !vhostDefaults) return undefined;
      const access: SocketAccess = { uid: a.uid ?? vhostDefaults.uid, gid: a.gid ?? vhostDefaults.gid, mode };
      return { type: 'vhost-user', socket, access };
    }
    case 'veth':
    case 'tap':
      return { type: a.type, netns: detached(a.netns), ifname: detached(a.ifname ?? 'eth0') };
    case 'interface':
      return { type: 'interface', name: detached(a.name) };
  }
}

/** sun_path holds 108 bytes with the NUL; VPP copies sock_filename into it. */
const MAX_SOCKET_PATH = 107;

/**
 * A vhost-user socket: inside the node's socket directory. VPP unlinks the path before it binds
 * (a record naming /run/containerd/containerd.sock as a VM's socket would delete it), so a port
 * may only name a file where nothing but VMs' sockets live.
 */
function checkSocketPath(
  c: Checker,
  v: string,
  path: string,
  directory: string | undefined,
): string | undefined {
  const socket = detached(v);
  if (Buffer.byteLength(socket) > MAX_SOCKET_PATH)
    return c.fail(path, `is longer than a Unix socket path may be (${MAX_SOCKET_PATH} bytes)`);
  if (directory !== undefined && directory !== '/' && !socket.startsWith(`${directory}/`))
    return c.fail(
      path,
      `is outside the node's vhost-user socket directory ${directory} (node.vhostUser.directory): VPP replaces whatever is at the path`,
    );
  return socket;
}
