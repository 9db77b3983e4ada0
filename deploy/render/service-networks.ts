/**
 * The service networks (40-service-networks.yaml): one NetworkAttachmentDefinition per service on
 * the bridge, giving its pod an address there, and the service bridge config that names them.
 */
import type { ServicesConfig } from '../../src/config/model.js';
import { CNI_TYPE, MULTUS_NETWORKS_ANNOTATION, NAD_API_VERSION, NAD_KIND } from './contract.js';
import { checkNetworkAttachment, type NetworkAttachmentDefinition, type StaticIpam } from './nad.js';
import { labels } from './object-parts.js';
import type { ManifestFile } from './render.js';
import { ValuesError, type ExampleService, type Values } from './values.js';
import type { Commented } from './yaml-out.js';

export const SERVICE_NAMES: Readonly<
  Record<ExampleService, { nad: string; container: string; title: string }>
> = {
  dhcp: { nad: 'vppnet-dhcp', container: 'dhcp', title: 'DHCP' },
  dnsProxy: { nad: 'vppnet-dns-proxy', container: 'dns-proxy', title: 'DNS-proxy' },
  metadata: { nad: 'vppnet-metadata', container: 'metadata', title: 'metadata' },
};

/**
 * serviceBridge as the agents get it: unless the values say otherwise, services.networks names the
 * NetworkAttachmentDefinitions rendered here, so each service network holds only its own address.
 */
export function renderedServiceBridge(values: Values): Record<string, unknown> {
  const raw = values.serviceBridge;
  if (raw.networks !== undefined) return { ...raw };
  return {
    ...raw,
    networks: {
      metadata: SERVICE_NAMES.metadata.nad,
      ...(raw.dnsAddress !== undefined && { dns: SERVICE_NAMES.dnsProxy.nad }),
      ...(raw.dhcpServer !== undefined && { dhcp: SERVICE_NAMES.dhcp.nad }),
    },
  };
}

/** The services configured on the bridge, each with its pod's address. */
export function serviceAddresses(
  services: ServicesConfig,
): { service: ExampleService; nad: string; address: string; address6?: string }[] {
  const out: { service: ExampleService; nad: string; address: string; address6?: string }[] = [];
  const ip6 = services.ip6;
  if (services.dhcpServer !== undefined)
    out.push({ service: 'dhcp', nad: SERVICE_NAMES.dhcp.nad, address: services.dhcpServer });
  if (services.dnsAddress !== undefined)
    out.push({
      service: 'dnsProxy',
      nad: SERVICE_NAMES.dnsProxy.nad,
      address: services.dnsAddress,
      ...(ip6?.dnsAddress !== undefined && { address6: ip6.dnsAddress }),
    });
  out.push({
    service: 'metadata',
    nad: SERVICE_NAMES.metadata.nad,
    address: services.metadataAddress,
    ...(ip6 && { address6: ip6.metadataAddress }),
  });
  return out;
}

export function networkAttachmentsFile(values: Values, services: ServicesConfig): ManifestFile {
  const sn = values.serviceNetworks;
  const gw = services.gateway;
  const vms = services.vmAddressRange;
  const ip6 = services.ip6;
  const docs = serviceAddresses(services).map(
    ({ service, nad, address, address6 }): Commented<NetworkAttachmentDefinition> => {
      // With services.ip6 the metadata and DNS pods hold their IPv6 address too, and route the
      // VMs' IPv6 service addresses via the bridge's IPv6 gateway.
      const six = address6 !== undefined && ip6 ? ip6 : undefined;
      const ipam: StaticIpam = {
        type: sn.ipamType,
        addresses: [
          { address: `${address}/${gw.len}`, gateway: gw.address },
          ...(six ? [{ address: `${address6}/${six.gateway.len}`, gateway: six.gateway.address }] : []),
        ],
        routes: [
          { dst: `${vms.address}/${vms.len}`, gw: gw.address },
          ...(six
            ? [{ dst: `${six.vmAddressRange.address}/${six.vmAddressRange.len}`, gw: six.gateway.address }]
            : []),
        ],
      };
      const config = {
        cniVersion: sn.cniVersion,
        name: nad,
        type: CNI_TYPE,
        mode: sn.mode,
        ...(sn.mtu !== undefined && { mtu: sn.mtu }),
        ipam,
      };
      const object: NetworkAttachmentDefinition = {
        apiVersion: NAD_API_VERSION,
        kind: NAD_KIND,
        metadata: { name: nad, namespace: values.namespace, labels: labels(nad, 'service-network') },
        spec: { config: `${JSON.stringify(config, null, 2)}\n` },
      };
      const problems = checkNetworkAttachment(object);
      if (problems.length > 0)
        throw new ValuesError(
          problems.map((message) => ({ path: `serviceNetworks (${nad})`, message })),
          'render',
        );
      return {
        object,
        comment: `The ${SERVICE_NAMES[service].title} pod's interface on each hypervisor's service bridge: ${address}${six ? ` and ${address6}` : ''}.`,
      };
    },
  );
  const first = docs[0]?.object.metadata.name ?? '';
  return {
    name: '40-service-networks.yaml',
    docs: docs.map((d, i) =>
      i > 0
        ? d
        : {
            ...d,
            comment: [
              'Service networks for Multus: a pod that names one in its annotation',
              `  ${MULTUS_NETWORKS_ANNOTATION}: '[{"name":"${first}","namespace":"${values.namespace}","interface":"${sn.podInterface}"}]'`,
              'gets a second interface on the service bridge of its own node, besides its Cilium eth0. Every',
              'hypervisor has its own bridge, so the same address on every node is no conflict. IPAM is the',
              `reference '${sn.ipamType}' plugin, which must be in the CNI bin directory next to vppnet-cni.`,
              '',
              d.comment ?? '',
            ].join('\n'),
          },
    ),
  };
}
