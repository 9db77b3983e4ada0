/**
 * Checking an ADD request from the wire before anything is done with it: the plugin validated its
 * config, but the agent must not trust a socket peer with paths and names it passes to `ip`.
 */
import { isAbsolute } from 'node:path';
import { AgentApiError, AgentErrorCode } from '../agent-api/errors.js';
import { isLinkName } from '../net/link-name.js';
import { isUnicastMac } from '../net/mac.js';
import { cidrFamily } from '../net/cidr.js';
import { ipLiteralFamily } from '../net/ip-literal.js';
import { canonicalIp6 } from '../net/ip.js';
import {
  ATTACH_MODES,
  isContainerId,
  type AttachIp,
  type AttachMode,
  type AttachRequest,
  type AttachRoute,
} from '../agent-api/protocol.js';

/** The request, or AgentApiError 7 listing every problem. */
export function validateAttachRequest(body: unknown): AttachRequest {
  const problems: string[] = [];
  const fail = (field: string, why: string): undefined => {
    problems.push(`${field} ${why}`);
    return undefined;
  };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AgentApiError(
      AgentErrorCode.INVALID_NETWORK_CONFIG,
      'invalid attach request',
      'the body must be a JSON object',
    );
  }
  const b = body as Record<string, unknown>;
  const network =
    typeof b.network === 'string' && b.network !== ''
      ? b.network
      : fail('network', 'must be a non-empty string');
  const containerId = isContainerId(b.containerId)
    ? b.containerId
    : fail('containerId', 'must be a container ID (a letter or digit, then letters, digits, _ . -)');
  const ifname =
    typeof b.ifname === 'string' && isLinkName(b.ifname)
      ? b.ifname
      : fail('ifname', 'must be a Linux interface name');
  const netns =
    typeof b.netns === 'string' && isAbsolute(b.netns) ? b.netns : fail('netns', 'must be an absolute path');
  const mode = ATTACH_MODES.includes(b.mode as AttachMode)
    ? (b.mode as AttachMode)
    : fail('mode', `must be one of ${ATTACH_MODES.join(', ')}`);
  let mtu: number | undefined;
  if (b.mtu !== undefined)
    mtu =
      Number.isInteger(b.mtu) && (b.mtu as number) >= 68 && (b.mtu as number) <= 65535
        ? (b.mtu as number)
        : fail('mtu', 'must be an integer 68..65535');
  let mac: string | undefined;
  if (b.mac !== undefined)
    mac =
      typeof b.mac === 'string' && isUnicastMac(b.mac)
        ? b.mac.toLowerCase()
        : fail('mac', 'must be a unicast MAC address');
  const ips: AttachIp[] = [];
  if (!Array.isArray(b.ips)) fail('ips', 'must be a list');
  else
    (b.ips as unknown[]).forEach((ip, i) => {
      const o = (typeof ip === 'object' && ip !== null ? ip : {}) as Record<string, unknown>;
      if (!isCidr(o.address)) return fail(`ips[${i}].address`, 'must be address/prefix');
      if (o.gateway !== undefined && (typeof o.gateway !== 'string' || ipLiteralFamily(o.gateway) === 0))
        return fail(`ips[${i}].gateway`, 'must be an IP address');
      // One spelling per IPv6 address from here on: claims, ACL rules and read-backs compare text.
      const address = canonicalCidr(o.address);
      ips.push(typeof o.gateway === 'string' ? { address, gateway: canonicalIp(o.gateway) } : { address });
    });
  const routes: AttachRoute[] = [];
  if (!Array.isArray(b.routes)) fail('routes', 'must be a list');
  else
    (b.routes as unknown[]).forEach((r, i) => {
      const o = (typeof r === 'object' && r !== null ? r : {}) as Record<string, unknown>;
      if (!isCidr(o.dst)) return fail(`routes[${i}].dst`, 'must be address/prefix');
      if (o.gw !== undefined && (typeof o.gw !== 'string' || ipLiteralFamily(o.gw) === 0))
        return fail(`routes[${i}].gw`, 'must be an IP address');
      const dst = canonicalCidr(o.dst);
      routes.push(typeof o.gw === 'string' ? { dst, gw: canonicalIp(o.gw) } : { dst });
    });
  if (
    problems.length > 0 ||
    containerId === undefined ||
    ifname === undefined ||
    netns === undefined ||
    mode === undefined ||
    network === undefined
  ) {
    throw new AgentApiError(
      AgentErrorCode.INVALID_NETWORK_CONFIG,
      'invalid attach request',
      problems.join('; '),
    );
  }
  return {
    network,
    containerId,
    ifname,
    netns,
    mode,
    ips,
    routes,
    ...(mtu !== undefined && { mtu }),
    ...(mac !== undefined && { mac }),
  };
}

function canonicalIp(address: string): string {
  return ipLiteralFamily(address) === 6 ? canonicalIp6(address) : address;
}

function canonicalCidr(cidr: string): string {
  const slash = cidr.indexOf('/');
  return `${canonicalIp(cidr.slice(0, slash))}${cidr.slice(slash)}`;
}

/** The CNI plugin's own rule (src/net/cidr.ts): what it sent is what the agent accepts. */
function isCidr(v: unknown): v is string {
  return typeof v === 'string' && cidrFamily(v) !== 0;
}
