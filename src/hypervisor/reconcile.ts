/**
 * One reconcile pass of a hypervisor: read VPP (snapshot), build desired and actual resources,
 * plan, apply. `planOnly` stops after planning, which is `vppnet plan --vpp` and the dry run of
 * the agent. This composes the domains (dataplane, SRv6, services) and sits below the runtime
 * (agent, cli), which supplies the host: its links and its files.
 */
import type { AgentConfig } from '../config/model.js';
import { withStaleRoutes } from '../dataplane/reset-interfaces.js';
import { dataplaneDomain } from '../dataplane/domain.js';
import { actualHostFiles, hostFilePaths } from '../dataplane/actual-host-files.js';
import type { FileFacts, HostFiles, HostLinks } from '../dataplane/context.js';
import { hostVethDescriptor, interfaceDescriptor } from '../dataplane/interface-descriptors.js';
import { keys, podOfTag, tags } from '../dataplane/keys.js';
import { portInterfaceName } from '../dataplane/names.js';
import { policerClassifyTablesByInterface } from '../services/policer-classify-reading.js';
import { loadSnapshot, type VppSnapshot } from './snapshot.js';
import { execute, type ExecutionResult } from '../reconcile/executor.js';
import { inPlaceByKind } from '../reconcile/in-place.js';
import { plan as makePlan } from '../reconcile/planner.js';
import type { Op, Plan, Resource } from '../reconcile/resource.js';
import { AclRegistry } from '../dataplane/acl-registry.js';
import { serviceAddressesInVpp } from '../services/actual.js';
import { servicesDomain } from '../services/domain.js';
import { memoryAddressBookStore } from '../services/address-store.js';
import { MACIP, type ServicesContext } from '../services/context.js';
import { aclSessionTimeoutsDescriptor } from '../services/acl-session-descriptors.js';
import { isPodVethName, POD_VETH_PREFIX } from '../services/pod-veth.js';
import type { ServicesRuntime } from '../services/runtime.js';
import { ServiceAddresses } from '../services/service-addresses.js';
import { actualSteering, existingBsids, existingBsidsOf, type SrGlobalsMemory } from '../srv6/actual.js';
import { srv6Domain } from '../srv6/domain.js';
import { policyDescriptor, steering6Descriptor, steeringDescriptor } from '../srv6/descriptors.js';
import { VM_VETH_PREFIX } from '../dataplane/names.js';
import { compareSteeringSides } from '../srv6/steering-resources.js';
import { announcementInPlace, NO_ARPING_WARNING, withoutAnnouncements } from '../srv6/underlay-neighbours.js';
import type { VppApi } from '../vpp/client/vpp-api.js';
import { msg } from '../vpp/messages/index.js';
import { desiredOverlayState, withServices, type DesiredOverlayState } from './desired-state.js';
import { nextTurn } from '../util/next-turn.js';
import { hypervisorKinds } from './kinds.js';
import { SteeringModel } from './steering-model.js';

/** Host veth prefixes vppnet owns: VM ports' and pods' (pods' only in their exact shape, pod-veth.ts). */
export const HOST_VETH_PREFIXES = [VM_VETH_PREFIX, POD_VETH_PREFIX];

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

export interface ReconcileOptions {
  readonly client: VppApi;
  readonly host: HostLinks;
  /** The vhost-user sockets' directories and access (the agent passes the machine's own). */
  readonly files: HostFiles;
  readonly globals: SrGlobalsStore;
  readonly planOnly?: boolean;
  /**
   * A plan-only pass that neither reads nor plans SR policies and steering: fleet mode's drift
   * check compares those with its steering model instead (steering-audit.ts). Remote routes of
   * the config are ignored.
   */
  readonly leaveSteering?: boolean;
  readonly shouldStop?: () => boolean;
  /** Ops not to run in this pass, and why: resources whose own retry is not due (executor.ts). */
  readonly hold?: (op: Op) => string | undefined;
  /**
   * The service bridge's runtime state (service addresses, attached pods, the lock shared with
   * pod attachments). Without it service addresses come from what VPP holds and pods' ports are
   * left alone.
   */
  readonly services?: ServicesRuntime;
}

export interface ReconcileOutcome {
  readonly plan: Plan;
  readonly result: ExecutionResult | undefined;
  readonly snapshot: VppSnapshot;
  /** Resources vppnet owns after the pass, by kind (for metrics and status). */
  readonly owned: ReadonlyMap<string, number>;
  /** Problems that leave parts of the desired state out (e.g. VMs without a service address). */
  readonly warnings?: readonly string[];
  /**
   * What VPP holds of policies and steering, for route deltas (route-delta.ts): set when the pass
   * applied and converged for both (nothing of theirs failed, was skipped or is pending).
   */
  readonly steering?: SteeringModel;
}

export async function reconcile(config: AgentConfig, opts: ReconcileOptions): Promise<ReconcileOutcome> {
  const services = opts.services;
  // Outside the lock: it waits for attachment calls in progress, which may wait for the lock.
  if (services?.attachments && !opts.planOnly) await services.attachments.forgetVanished();
  const pass = (): Promise<ReconcileOutcome> => reconcilePass(config, opts);
  return services?.lock ? services.lock.run(pass) : pass();
}

async function reconcilePass(given: AgentConfig, opts: ReconcileOptions): Promise<ReconcileOutcome> {
  if (opts.leaveSteering && !opts.planOnly) throw new Error('leaveSteering is for plan-only passes');
  const config = opts.leaveSteering ? { ...given, remoteRoutes: [] } : given;
  // The overlay's desired state needs only the policies of the snapshot: made as soon as they are
  // in, on the next turn of the event loop (the requests asked so far are written first), while
  // VPP answers the other dumps. Its error, if any, is the pass's once the snapshot is in.
  let overlayMade: Promise<DesiredOverlayState> | undefined;
  const snapshot = await loadSnapshot(
    opts.client,
    {
      externalInterfaces: externalInterfaceNames(config),
      sharedTables: [{ id: 0, ip6: true }],
      // Always: a service bridge removed from the config must be removed from VPP too.
      services: true,
      steering: !opts.leaveSteering,
    },
    {
      onPolicies: (policies) => {
        overlayMade = nextTurn().then(() => desiredOverlayState(config, existingBsidsOf(policies, config)));
        // Awaited after the snapshot; a failed snapshot leaves it unawaited.
        overlayMade.catch(() => undefined);
      },
    },
  );
  const pods = opts.services?.attachments;
  const vethPrefixes = pods ? HOST_VETH_PREFIXES : HOST_VETH_PREFIXES.filter((p) => p !== POD_VETH_PREFIX);
  const hostVeths = (await Promise.all(vethPrefixes.map((p) => opts.host.listVeths(p))))
    .flat()
    .filter((name) => !name.startsWith(POD_VETH_PREFIX) || isPodVethName(name));

  const warnings: string[] = [];
  // Every pass, not once: host ends an agent made before it dropped their ingress are kept, not
  // made again (that would cut their VMs and pods off), and a firewall's reload can flush the
  // chains at any time. One process for all, nothing when there are none. A failure leaves the
  // pass to apply the rest (the VMs' config does not wait on the host's firewall) and says so.
  if (!opts.planOnly && hostVeths.length > 0) {
    await opts.host.keepIsolated(hostVeths).catch((err: Error) => {
      warnings.push(`host ends may pass frames to the host's own stack: ${err.message}`);
    });
  }
  let addresses: ReadonlyMap<string, string> = new Map();
  if (config.services) {
    const keeper = opts.services?.addresses ?? new ServiceAddresses(memoryAddressBookStore());
    const assigned = await keeper.assign(config, serviceAddressesInVpp(snapshot, config), {
      commit: !opts.planOnly,
    });
    addresses = assigned.addresses;
    warnings.push(...assigned.problems);
  }
  // Read after the snapshot: a pod port VPP or the host already has belongs to an attachment that
  // was registered before, so it is in one of these lists and not mistaken for a leftover.
  const podsInProgress = new Set(pods?.podsInProgress());
  const activePods = pods?.desiredPods() ?? [];
  // Every pod registered when the snapshot was read: an untagged port of one of them is its
  // attach at work (the create's reply or the tag still to come), not a leftover.
  const knownPods = new Set([...podsInProgress, ...activePods.map((p) => p.id)]);
  const overlay = await (overlayMade ?? desiredOverlayState(config, existingBsids(snapshot, config)));
  const full = withServices(overlay, config, { addresses, pods: activePods });
  const desired = opts.client.supports(msg.arping)
    ? full
    : { ...full, resources: withoutAnnouncements(full.resources) };
  if (desired !== full) warnings.push(NO_ARPING_WARNING);
  const desiredKeys = new Set(desired.resources.map((r) => r.key));
  const memory = await opts.globals.load();
  const files = opts.files;
  const filePaths = hostFilePaths(desired.resources);
  const fileFacts = new Map<string, FileFacts | undefined>(
    await Promise.all(filePaths.map(async (p) => [p, await files.stat(p)] as const)),
  );
  let actual = [
    ...dataplaneDomain.actual(snapshot, {
      desiredKeys,
      hostVeths,
      hostVethPrefixes: vethPrefixes,
      vmPortInterfaces: attachedInterfaces(config),
      untaggedOwnMacs: untaggedOnCreate(desired.resources),
      // An untagged port of a pod some attachment knows is its attach at work, not a leftover.
      ...(pods && { untaggedOwnHostInterface: (h: string) => isPodVethName(h) && !knownPods.has(h) }),
    }),
    ...actualHostFiles(desired.resources, fileFacts, snapshot),
    ...srv6Domain.actual(snapshot, config, memory),
    ...servicesDomain.actual(snapshot, { desiredKeys, memory }),
  ];
  // Pods' ports are the attachment manager's while it works on them, and entirely so without it.
  // (Steering entries never depend on a pod's port.)
  actual = withoutPodPorts(actual, (pod) => !pods || podsInProgress.has(pod));
  actual = withStaleRoutes(desired.resources, actual);
  const steeringInVpp = actualSteering(snapshot, config);
  const plan = makePlan(
    desired.resources,
    actual,
    hypervisorKinds,
    compareSteeringSides(desired, steeringInVpp),
  );
  if (opts.planOnly) {
    const owned = countByKind(actual.filter((r) => !r.external));
    addCount(owned, steeringDescriptor.kind, steeringInVpp.steering.size);
    addCount(owned, steering6Descriptor.kind, steeringInVpp.steering6.size);
    return { plan, result: undefined, snapshot, owned, warnings };
  }

  const ctx: ServicesContext = {
    client: opts.client,
    interfaces: snapshot.interfaces,
    host: opts.host,
    files,
    acls: AclRegistry.fromDump(snapshot.acls),
    macips: AclRegistry.fromDump(snapshot.macipAcls, MACIP),
    policerBindings: policerClassifyTablesByInterface(snapshot.policerClassify),
  };
  const result = await execute(plan, hypervisorKinds, ctx, {
    ...(opts.shouldStop ? { shouldStop: opts.shouldStop } : {}),
    ...(opts.hold ? { hold: opts.hold } : {}),
  });
  // The DHCP relay's circuit-ids, for the service map: VM ports as VPP has them now.
  opts.services?.addresses.setCircuitIds(
    new Map(
      config.ports.flatMap((p) => {
        const name = portInterfaceName(p);
        return ctx.interfaces.has(name) ? [[p.name, ctx.interfaces.index(name)] as const] : [];
      }),
    ),
  );
  // Remember the SRv6 globals only when their ops really ran (not failed, not skipped by a stop):
  // they cannot be read back, and a wrong memory would keep them unset on this VPP for good.
  const notDone = new Set([...result.failed, ...result.skipped].map((f) => f.op.key));
  const pendingKeys = new Set(plan.pending.map((p) => p.resource.key));
  // An SR global op that did not run leaves what was remembered for this VPP process (if any).
  const remembered = memory?.vppPid === snapshot.vppPid ? memory : undefined;
  const srDone = !notDone.has(keys.srEncapSource()) && !notDone.has(keys.srHopLimit());
  const { encapSource, hopLimit } = srDone ? config.node.srv6 : (remembered ?? {});
  // The acl plugin's UDP idle timeout, likewise: what ran, else what was remembered.
  const aclKey = keys.aclSessionTimeouts();
  const aclDesired = desired.resources.find((r) => aclSessionTimeoutsDescriptor.is(r))?.value.udpIdleSeconds;
  // By kind first: a bulk member's op builds its key when asked (100k steering ops from empty).
  const aclKind = aclSessionTimeoutsDescriptor.kind;
  const aclRan = plan.ops.some((o) => o.kind === aclKind && o.key === aclKey) && !notDone.has(aclKey);
  const aclUdpIdleSeconds = aclRan ? aclDesired : remembered?.aclUdpIdleSeconds;
  const underlayAnnouncement = announcementInPlace(
    snapshot,
    desired.resources,
    (k) => notDone.has(k) || pendingKeys.has(k),
  );
  await opts.globals.save({
    vppPid: snapshot.vppPid,
    ...(encapSource === undefined ? {} : { encapSource }),
    ...(hopLimit === undefined ? {} : { hopLimit }),
    ...(underlayAnnouncement ? { underlayAnnouncement } : {}),
    ...(aclUdpIdleSeconds === undefined ? {} : { aclUdpIdleSeconds }),
  });
  const srKinds = new Set([policyDescriptor.kind, steeringDescriptor.kind, steering6Descriptor.kind]);
  const srConverged =
    ![...result.failed, ...result.skipped].some((f) => srKinds.has(f.op.kind)) &&
    !plan.pending.some((p) => srKinds.has(p.resource.kind));
  const steering = srConverged
    ? SteeringModel.converged(config, snapshot.vppPid, desired.bsids, desired.steering, desired.steering6)
    : undefined;
  return {
    plan,
    result,
    snapshot,
    owned: inPlaceByKind(plan, result),
    warnings,
    ...(steering && { steering }),
  };
}

/** Leaves the ports of some pods (their interfaces, what hangs off them, host links) out of a pass. */
function withoutPodPorts(actual: Resource[], leaveAlone: (pod: string) => boolean): Resource[] {
  const skipped = new Set<string>();
  for (const r of actual) {
    const pod = interfaceDescriptor.is(r) ? podOfTag(r.value.name) : undefined;
    if (pod !== undefined && leaveAlone(pod))
      skipped
        .add(r.key)
        .add(keys.hostVeth(pod))
        // The pod's own ACLs do not name its interface.
        .add(keys.acl(tags.podAclIn(pod)))
        .add(keys.macipAcl(tags.podMacip(pod)));
    if (hostVethDescriptor.is(r) && isPodVethName(r.value.hostName) && leaveAlone(r.value.hostName))
      skipped.add(r.key);
  }
  // Nothing to leave out (no pod in progress): the same list, not a lookup per dependency.
  if (skipped.size === 0) return actual;
  return actual.filter((r) => !skipped.has(r.key) && !r.deps.some((d) => skipped.has(d)));
}

/** MACs of the desired interfaces VPP tags only after creating them (actual.ts, untaggedOwnMacs). */
function untaggedOnCreate(desired: readonly Resource[]): Set<string> {
  const out = new Set<string>();
  for (const r of desired) {
    if (!interfaceDescriptor.is(r)) continue;
    const v = r.value;
    // Not a pod's: an untagged pod port is told by its host interface (untaggedOwnHostInterface),
    // so that one whose attach is at work is never taken for a leftover by its MAC.
    if (podOfTag(v.name) !== undefined) continue;
    if (v.type === 'loopback' || v.type === 'af_packet') out.add(v.mac);
  }
  return out;
}

/** The VPP interfaces VM ports are attached to (`attach: interface`). */
function attachedInterfaces(config: AgentConfig): Set<string> {
  const out = new Set<string>();
  for (const p of config.ports) if (p.attach.type === 'interface') out.add(p.attach.name);
  return out;
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

/** Adds a bulk kind's count; none at all leaves the kind out, as countByKind does. */
function addCount(counts: Map<string, number>, kind: string, n: number): void {
  if (n > 0) counts.set(kind, (counts.get(kind) ?? 0) + n);
}
