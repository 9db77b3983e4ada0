/**
 * One reconcile pass: read VPP (snapshot), build desired and actual resources, plan, apply.
 * `planOnly` stops after planning, which is `vppnet plan --vpp` and the dry run of the agent.
 */
import type { AgentConfig } from '../config/model.js';
import { actualDataplane } from '../dataplane/actual.js';
import type { DataplaneContext, HostLinks } from '../dataplane/context.js';
import {
  addressDescriptor,
  adminUpDescriptor,
  hostVethDescriptor,
  interfaceDescriptor,
  interfaceTableDescriptor,
  proxyArpInterfaceDescriptor,
  unnumberedDescriptor,
} from '../dataplane/interface-descriptors.js';
import { ipTableDescriptor, proxyArpDescriptor, routeDescriptor } from '../dataplane/ip-descriptors.js';
import { loadSnapshot, type VppSnapshot } from '../dataplane/snapshot.js';
import type { Descriptor } from '../reconcile/descriptor.js';
import { execute, type ExecutionResult } from '../reconcile/executor.js';
import { plan as makePlan } from '../reconcile/planner.js';
import type { Plan, Resource } from '../reconcile/resource.js';
import { actualSrv6, existingBsids, type SrGlobalsMemory } from '../srv6/actual.js';
import {
  encapSourceDescriptor,
  hopLimitDescriptor,
  localSidDescriptor,
  policyDescriptor,
  steeringDescriptor,
} from '../srv6/descriptors.js';
import { allocateBsids, desiredOverlay, VM_VETH_PREFIX } from '../srv6/overlay.js';
import type { VppClient } from '../vpp/client/vpp-client.js';

export const descriptors: ReadonlyMap<string, Descriptor<unknown, DataplaneContext>> = new Map(
  (
    [
      ipTableDescriptor,
      routeDescriptor,
      proxyArpDescriptor,
      interfaceDescriptor,
      hostVethDescriptor,
      adminUpDescriptor,
      interfaceTableDescriptor,
      addressDescriptor,
      unnumberedDescriptor,
      proxyArpInterfaceDescriptor,
      encapSourceDescriptor,
      hopLimitDescriptor,
      localSidDescriptor,
      policyDescriptor,
      steeringDescriptor,
    ] as Descriptor<never, DataplaneContext>[]
  ).map((d) => [d.kind, d as Descriptor<unknown, DataplaneContext>]),
);

/** Host veth prefixes vppnet owns. */
export const HOST_VETH_PREFIXES = [VM_VETH_PREFIX];

/** Remembers SRv6 globals per VPP process (they cannot be read back). */
export interface SrGlobalsStore {
  load(): Promise<SrGlobalsMemory | undefined>;
  save(memory: SrGlobalsMemory): Promise<void>;
}

export function memoryStore(): SrGlobalsStore {
  let m: SrGlobalsMemory | undefined;
  return {
    load: () => Promise.resolve(m),
    save: (x) => {
      m = x;
      return Promise.resolve();
    },
  };
}

/** The desired resources for a config, given the BSIDs already in use. */
export function desiredResources(config: AgentConfig, bsidsInVpp: ReadonlyMap<string, string>): Resource[] {
  return desiredOverlay(config, allocateBsids(config, bsidsInVpp));
}

/**
 * What the agent would do to a VPP that has nothing of vppnet's yet. The interfaces vppnet only
 * configures (the underlay NIC) are assumed present, as on a real hypervisor.
 */
export function planFresh(config: AgentConfig): Plan {
  const desired = desiredResources(config, new Map());
  return makePlan(desired, desired.filter((r) => r.external), descriptors);
}

export interface ReconcileOptions {
  readonly client: VppClient;
  readonly host: HostLinks;
  readonly globals: SrGlobalsStore;
  readonly planOnly?: boolean;
  readonly shouldStop?: () => boolean;
}

export interface ReconcileOutcome {
  readonly plan: Plan;
  readonly result: ExecutionResult | undefined;
  readonly snapshot: VppSnapshot;
  /** Resources vppnet owns after the pass, by kind (for metrics and status). */
  readonly owned: ReadonlyMap<string, number>;
}

export async function reconcile(config: AgentConfig, opts: ReconcileOptions): Promise<ReconcileOutcome> {
  const snapshot = await loadSnapshot(opts.client, {
    externalInterfaces: externalInterfaceNames(config),
    sharedTables: [{ id: 0, ip6: true }],
    services: config.services !== undefined,
  });
  const desired = desiredResources(config, existingBsids(snapshot, config));
  const desiredKeys = new Set(desired.map((r) => r.key));
  const hostVeths = (await Promise.all(HOST_VETH_PREFIXES.map((p) => opts.host.listVeths(p)))).flat();
  const memory = await opts.globals.load();
  const actual = [
    ...actualDataplane(snapshot, { desiredKeys, hostVeths, hostVethPrefixes: HOST_VETH_PREFIXES }),
    ...actualSrv6(snapshot, config, memory),
  ];
  const plan = makePlan(desired, actual, descriptors);
  if (opts.planOnly) return { plan, result: undefined, snapshot, owned: countByKind(actual) };

  const ctx: DataplaneContext = { client: opts.client, interfaces: snapshot.interfaces, host: opts.host };
  const result = await execute(plan, descriptors, ctx, opts.shouldStop ? { shouldStop: opts.shouldStop } : {});
  const globalsDone = result.failed.every((f) => f.op.resource.kind !== 'sr-encap-source' && f.op.resource.kind !== 'sr-hop-limit');
  if (globalsDone) {
    await opts.globals.save({ vppPid: snapshot.vppPid, encapSource: config.node.srv6.encapSource, hopLimit: config.node.srv6.hopLimit });
  }
  const failedKeys = new Set([...result.failed, ...result.skipped].map((f) => f.op.resource.key));
  const owned = countByKind(desired.filter((r) => !r.external && !failedKeys.has(r.key)));
  return { plan, result, snapshot, owned };
}

function externalInterfaceNames(config: AgentConfig): string[] {
  const names = [config.node.underlay.interface];
  for (const p of config.ports) if (p.attach.type === 'interface') names.push(p.attach.name);
  return names;
}

function countByKind(resources: readonly Resource[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of resources) m.set(r.kind, (m.get(r.kind) ?? 0) + 1);
  return m;
}
