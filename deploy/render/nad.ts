/**
 * Multus' NetworkAttachmentDefinition (k8s.cni.cncf.io/v1): not in the Kubernetes API, so not in
 * kubernetes-models. Its CRD (Multus' deployments/multus-daemonset.yml) says only that
 * `spec.config` is a string; Multus reads it as a CNI network configuration, which is what
 * `checkNetworkAttachment` checks too, with the plugin's own parser.
 */
import { isIP } from 'node:net';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { parseNetworkConfig } from '../../src/cni/config.js';
import { NAD_API_VERSION, NAD_KIND } from './contract.js';

export interface NetworkAttachmentDefinition {
  readonly apiVersion: typeof NAD_API_VERSION;
  readonly kind: typeof NAD_KIND;
  readonly metadata: NonNullable<IConfigMap['metadata']> & {
    readonly name: string;
    readonly namespace: string;
  };
  readonly spec: { readonly config: string };
}

/** The static IPAM section vppnet's service networks use (the reference `static` plugin). */
export interface StaticIpam {
  readonly type: string;
  readonly addresses: readonly { readonly address: string; readonly gateway: string }[];
  readonly routes: readonly { readonly dst: string; readonly gw: string }[];
}

const DNS_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const IP4_CIDR =
  /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}\/([0-9]|[12]\d|3[0-2])$/;
const IP4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

function isObj(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function onlyKeys(
  v: Record<string, unknown>,
  allowed: readonly string[],
  path: string,
  problems: string[],
): void {
  for (const k of Object.keys(v)) if (!allowed.includes(k)) problems.push(`${path}.${k}: unknown field`);
}

/**
 * Every problem of a parsed NetworkAttachmentDefinition as one line each; [] when it is one we can
 * apply: the CRD's shape, a `spec.config` that vppnet-cni's parser accepts with the same name as the
 * object (Multus' convention; GC is scoped by it), and a static IPAM section of the form above.
 */
export function checkNetworkAttachment(o: unknown): string[] {
  const problems: string[] = [];
  if (!isObj(o)) return ['not a mapping'];
  onlyKeys(o, ['apiVersion', 'kind', 'metadata', 'spec'], '', problems);
  if (o.apiVersion !== NAD_API_VERSION) problems.push(`apiVersion: must be ${NAD_API_VERSION}`);
  if (o.kind !== NAD_KIND) problems.push(`kind: must be ${NAD_KIND}`);
  const meta = isObj(o.metadata) ? o.metadata : {};
  onlyKeys(meta, ['name', 'namespace', 'labels', 'annotations'], 'metadata', problems);
  const name = meta.name;
  if (typeof name !== 'string' || !DNS_SUBDOMAIN.test(name))
    problems.push('metadata.name: must be a DNS subdomain');
  if (typeof meta.namespace !== 'string' || !DNS_SUBDOMAIN.test(meta.namespace))
    problems.push('metadata.namespace: is required');
  for (const key of ['labels', 'annotations']) {
    const m = meta[key];
    if (m !== undefined && (!isObj(m) || Object.values(m).some((v) => typeof v !== 'string'))) {
      problems.push(`metadata.${key}: must map strings to strings`);
    }
  }
  const spec = isObj(o.spec) ? o.spec : undefined;
  if (spec === undefined) return [...problems, 'spec: is required'];
  onlyKeys(spec, ['config'], 'spec', problems);
  if (typeof spec.config !== 'string') return [...problems, 'spec.config: must be a string'];

  let config;
  try {
    config = parseNetworkConfig(spec.config);
  } catch (err) {
    return [...problems, `spec.config: vppnet-cni rejects it: ${(err as Error).message}`];
  }
  if (config.name !== name)
    problems.push(`spec.config.name: ${config.name} is not the object's name ${String(name)}`);
  problems.push(...checkStaticIpam(config.raw.ipam).map((p) => `spec.config.ipam.${p}`));
  return problems;
}

export function checkStaticIpam(ipam: unknown): string[] {
  const problems: string[] = [];
  if (!isObj(ipam)) return ['must be an object'];
  onlyKeys(ipam, ['type', 'addresses', 'routes'], '', problems);
  if (ipam.type !== 'static') problems.push('type: must be static (the service pods have fixed addresses)');
  const addresses = Array.isArray(ipam.addresses) ? ipam.addresses : [];
  // One IPv4 address, and with services.ip6 one IPv6 address after it.
  if (addresses.length !== 1 && addresses.length !== 2)
    problems.push('addresses: must hold one IPv4 address, and at most one IPv6 address after it');
  addresses.forEach((a: unknown, i) => {
    if (!isObj(a)) return problems.push(`addresses[${i}]: must be an object`);
    onlyKeys(a, ['address', 'gateway'], `addresses[${i}]`, problems);
    const family = i === 0 ? 4 : 6;
    if (typeof a.address !== 'string' || !isCidrOf(a.address, family))
      problems.push(`addresses[${i}].address: must be IPv${family}/len`);
    if (typeof a.gateway !== 'string' || !isAddressOf(a.gateway, family))
      problems.push(`addresses[${i}].gateway: must be an IPv${family} address`);
    return undefined;
  });
  const routes = Array.isArray(ipam.routes) ? ipam.routes : [];
  if (routes.length === 0) problems.push('routes: must route the VM service addresses via the bridge');
  routes.forEach((r: unknown, i) => {
    if (!isObj(r)) return problems.push(`routes[${i}]: must be an object`);
    onlyKeys(r, ['dst', 'gw'], `routes[${i}]`, problems);
    const family = typeof r.dst === 'string' && r.dst.includes(':') ? 6 : 4;
    if (typeof r.dst !== 'string' || !isCidrOf(r.dst, family))
      problems.push(`routes[${i}].dst: must be IPv4/len or IPv6/len`);
    if (typeof r.gw !== 'string' || !isAddressOf(r.gw, family))
      problems.push(`routes[${i}].gw: must be an IPv${family} address`);
    return undefined;
  });
  return problems;
}

function isAddressOf(v: string, family: 4 | 6): boolean {
  return family === 4 ? IP4.test(v) : isIP(v) === 6;
}

function isCidrOf(v: string, family: 4 | 6): boolean {
  if (family === 4) return IP4_CIDR.test(v);
  const [address, len, extra] = v.split('/');
  return (
    extra === undefined && isIP(address ?? '') === 6 && /^\d{1,3}$/.test(len ?? '') && Number(len) <= 128
  );
}
