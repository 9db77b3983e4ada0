/**
 * The check pass over the `node` section, once the schema accepted its structure: what one field
 * cannot say alone (the gateway on the underlay subnet, the locator apart from the underlay and
 * the BSIDs), the defaults taken from other fields, and the normalized NodeConfig.
 */
import {
  aggregateIp6,
  bigIntToIp6,
  canonicalIp6,
  ip6InPrefixOnce,
  ip6Network,
  ip6PrefixesOverlap,
  ip6ToBigInt,
  type Ip6Prefix,
} from '../net/ip.js';
import { detached, type Checker } from './checker.js';
import { NODE_DEFAULTS, SRV6_DEFAULTS, UNDERLAY_NEIGHBOR_DEFAULTS } from './defaults.js';
import type { NodeConfig, VhostUserDefaults } from './model.js';
import { parsedIp6Prefix } from './schema/fields.js';
import type { NodeInput, VhostUserInput } from './schema/node.js';

export function checkNode(c: Checker, n: NodeInput): NodeConfig | undefined {
  const u = n.underlay;
  const s = n.srv6;
  const addr = parsedIp6Prefix(u.address);
  if (!addr) return undefined;
  const gateway = canonicalIp6(u.gateway);
  if (!ip6InPrefixOnce(gateway, addr))
    c.fail('node.underlay.gateway', `is not inside ${addr.address}/${addr.len}`);
  const vhostUser = checkVhostUserDefaults(c, n.vhostUser ?? {});
  const locator = parsedIp6Prefix(s.locator);
  if (!locator) return undefined;
  if (locator.len > 112) c.fail('node.srv6.locator', 'must be /112 or shorter to leave room for SIDs');
  if (ip6InPrefixOnce(addr.address, locator))
    c.fail('node.srv6.locator', 'contains the underlay address: a SID can never equal an interface address');
  const encapSource = s.encapSource === undefined ? addr.address : canonicalIp6(s.encapSource);
  let bsidPrefix: Ip6Prefix | undefined;
  if (s.bsidPrefix !== undefined) bsidPrefix = parsedIp6Prefix(s.bsidPrefix);
  else if (locator.len >= 16 && locator.len <= 112) {
    // Default: the locator with the low byte of its last 16 prefix bits set, one level longer
    // (fc00:1::/48 → fc00:1:ff::/64): outside the locator, so never routed here from the underlay.
    const net = ip6ToBigInt(locator.address) | (0xffn << BigInt(128 - locator.len));
    bsidPrefix = { address: bigIntToIp6(net), len: locator.len + 16 };
  }
  if (bsidPrefix && bsidPrefix.len > 120) c.fail('node.srv6.bsidPrefix', 'must be /120 or shorter');
  if (bsidPrefix && ip6PrefixesOverlap(bsidPrefix, locator))
    c.fail(
      'node.srv6.bsidPrefix',
      'overlaps the locator: remote hypervisors could steer traffic into local policies',
    );
  const allowedSources = checkAllowedSources(s.allowedSources, addr);
  if (!vhostUser || !bsidPrefix) return undefined;
  return {
    name: detached(n.name),
    underlay: {
      interface: detached(u.interface),
      address: addr.address,
      prefixLength: addr.len,
      gateway,
      neighborMaxAgeSeconds: u.neighborMaxAgeSeconds ?? UNDERLAY_NEIGHBOR_DEFAULTS.maxAgeSeconds,
      mtu: u.mtu ?? NODE_DEFAULTS.underlayMtu,
    },
    vhostUser,
    srv6: {
      locator,
      encapSource,
      hopLimit: s.hopLimit ?? SRV6_DEFAULTS.hopLimit,
      bsidPrefix,
      allowedSources,
    },
  };
}

/**
 * The SRv6 ingress filter's sources: as written (networks, the schema says), aggregated
 * (aggregateIp6), or the underlay address's own prefix.
 */
function checkAllowedSources(written: readonly string[] | undefined, underlay: Ip6Prefix): Ip6Prefix[] {
  if (written === undefined) return [{ address: ip6Network(underlay), len: underlay.len }];
  const prefixes: Ip6Prefix[] = [];
  for (const text of written) {
    const p = parsedIp6Prefix(text);
    if (p) prefixes.push(p);
  }
  return aggregateIp6(prefixes);
}

export function checkVhostUserDefaults(c: Checker, v: VhostUserInput): VhostUserDefaults | undefined {
  const mode = socketMode(c, v.mode ?? NODE_DEFAULTS.vhostSocketMode, 'node.vhostUser.mode');
  const directory = v.directory === undefined ? NODE_DEFAULTS.vhostSocketDirectory : detached(v.directory);
  const directoryMode = octalMode(
    c,
    v.directoryMode ?? NODE_DEFAULTS.vhostDirectoryMode,
    'node.vhostUser.directoryMode',
  );
  if (mode === undefined || directoryMode === undefined) return undefined;
  return { uid: v.uid, gid: v.gid, mode, directoryMode, directory };
}

/** Permission bits from a string the schema accepted ('0660', '660' or '0o660'). */
export function octalMode(c: Checker, text: string, path: string): number | undefined {
  const mode = parseInt(text.replace(/^0o/, ''), 8);
  if (mode > 0o777) return c.fail(path, 'may not set setuid, setgid or sticky bits');
  return mode;
}

/**
 * A vhost-user socket's mode: read and write for owner and group at most. Whoever may connect
 * while the VM's QEMU is away is its frontend: a 0666 socket lets any local user be the VM.
 */
export function socketMode(c: Checker, text: string, path: string): number | undefined {
  const mode = octalMode(c, text, path);
  if (mode !== undefined && (mode & ~0o660) !== 0)
    return c.fail(
      path,
      `${mode.toString(8).padStart(4, '0')} is more than 0660: other users (or execute bits) may not reach a VM's socket`,
    );
  return mode;
}
