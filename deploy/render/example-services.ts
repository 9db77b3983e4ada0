/**
 * The example service pods (50-service-examples.yaml): a DaemonSet per service, each pod on its
 * node's service bridge through its service network, without root and without API access.
 */
import type { IDaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import type { ServicesConfig } from '../../src/config/model.js';
import { HOST_PATHS, MULTUS_NETWORKS_ANNOTATION, NAMES, SERVICE_MAP_SOCKET } from './contract.js';
import { labels, resources } from './object-parts.js';
import type { ManifestFile, ManifestObject } from './render.js';
import { SERVICE_NAMES, serviceAddresses } from './service-networks.js';
import type { ExampleService, Values } from './values.js';
import type { Commented } from './yaml-out.js';

/** The example service pods' user and group: nobody, as in Debian and most images. */
const EXAMPLE_SERVICE_UID = 65534;

export function exampleServicesFile(values: Values, services: ServicesConfig): ManifestFile {
  const sa: IServiceAccount = {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: {
      name: NAMES.serviceExamples,
      namespace: values.namespace,
      labels: labels(NAMES.serviceExamples, 'example-service'),
    },
    automountServiceAccountToken: false,
  };
  const ports: Record<ExampleService, NonNullable<IContainer['ports']>> = {
    dhcp: [{ name: 'dhcp', containerPort: 67, protocol: 'UDP' }],
    dnsProxy: [
      { name: 'dns', containerPort: 53, protocol: 'UDP' },
      { name: 'dns-tcp', containerPort: 53, protocol: 'TCP' },
    ],
    metadata: [{ name: 'http', containerPort: 80, protocol: 'TCP' }],
  };
  const docs: Commented<ManifestObject>[] = [
    { object: sa, comment: 'Example service pods: no Kubernetes API access either.' },
  ];
  for (const { service, nad, address } of serviceAddresses(services)) {
    const ex = values.examples.services[service];
    const name = `vppnet-example-${SERVICE_NAMES[service].container}`;
    // DHCP and metadata look callers up in the agent's service map (GET /v1/service-map on its socket).
    const needsServiceMap = service !== 'dnsProxy';
    const container: IContainer = {
      name: SERVICE_NAMES[service].container,
      image: ex.image,
      ...(ex.command !== undefined && { command: [...ex.command] }),
      ...(ex.args.length > 0 && { args: [...ex.args] }),
      env: [
        { name: 'SERVICE_ADDRESS', value: address },
        { name: 'SERVICE_INTERFACE', value: values.serviceNetworks.podInterface },
        ...(needsServiceMap ? [{ name: 'VPPNET_SERVICE_MAP_SOCKET', value: SERVICE_MAP_SOCKET }] : []),
      ],
      ports: ports[service],
      resources: resources(values.examples.resources),
      // Not root: the service-map socket is readable by anyone who can reach its directory, and the
      // pod's own sysctl (below) lets it bind 53, 67 and 80 without a capability.
      securityContext: {
        runAsNonRoot: true,
        runAsUser: EXAMPLE_SERVICE_UID,
        runAsGroup: EXAMPLE_SERVICE_UID,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
      },
      ...(needsServiceMap && {
        volumeMounts: [{ name: 'vppnet-service-map', mountPath: HOST_PATHS.serviceMapDir, readOnly: true }],
      }),
    };
    const selection = [
      { name: nad, namespace: values.namespace, interface: values.serviceNetworks.podInterface },
    ];
    const ds: IDaemonSet = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name, namespace: values.namespace, labels: labels(name, 'example-service') },
      spec: {
        selector: { matchLabels: { 'app.kubernetes.io/name': name } },
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
        template: {
          metadata: {
            labels: labels(name, 'example-service'),
            annotations: { [MULTUS_NETWORKS_ANNOTATION]: JSON.stringify(selection) },
          },
          spec: {
            serviceAccountName: NAMES.serviceExamples,
            automountServiceAccountToken: false,
            // The DNS proxy forwards to the node's resolvers, never to cluster DNS: tenants' VMs must
            // not resolve the cluster's internal names.
            ...(service === 'dnsProxy' && { dnsPolicy: 'Default' as const }),
            nodeSelector: { ...values.placement.nodeSelector },
            ...(values.placement.affinity !== undefined && { affinity: values.placement.affinity }),
            tolerations: values.placement.tolerations.map((t) => ({ ...t })),
            // Per pod network namespace, a safe sysctl since Kubernetes 1.22: low ports without root.
            securityContext: { sysctls: [{ name: 'net.ipv4.ip_unprivileged_port_start', value: '0' }] },
            containers: [container],
            ...(needsServiceMap && {
              volumes: [
                {
                  name: 'vppnet-service-map',
                  hostPath: { path: HOST_PATHS.serviceMapDir, type: 'DirectoryOrCreate' as const },
                },
              ],
            }),
          },
        },
      },
    };
    docs.push({
      object: ds,
      comment: [
        `Example ${SERVICE_NAMES[service].title} service: one pod per hypervisor (each node's VMs reach only their own node's`,
        `bridge), with its Cilium eth0 as usual plus ${values.serviceNetworks.podInterface} = ${address} on the bridge.`,
        'maxSurge 0: an old and a new pod on one node would hold the same address on the same bridge.',
        ...(needsServiceMap
          ? [
              `It reads the agent's service map (which VM is behind a 169.252.252.x source) on ${SERVICE_MAP_SOCKET},`,
              'mounting that directory alone, read-only: the socket answers GET /v1/service-map and nothing else. The',
              "agent's privileged socket (attach, detach, gc) is in a directory no pod mounts.",
            ]
          : []),
        'Replace the image (examples.*.image); the server must bind to SERVICE_ADDRESS.',
      ].join('\n'),
    });
  }
  return { name: '50-service-examples.yaml', docs };
}
