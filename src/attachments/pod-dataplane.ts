/**
 * One pod port in VPP, on its own: what the attachment manager applies on ADD and removes on DEL.
 * A full reconcile reads every table's routes (100k of them on a busy node); this reads only the
 * interfaces, bridge domains and ACLs, plans the pod's resources against them with the same
 * planner, descriptors and ownership rules, and executes that plan under the dataplane lock.
 */
import type { ServicesConfig } from '../config/model.js';
import { actualDataplane } from '../dataplane/actual.js';
import { NO_HOST_FILES, type HostLinks } from '../dataplane/context.js';
import { InterfaceRegistry } from '../dataplane/interface-registry.js';
import { keys, podOfTag, tags } from '../dataplane/keys.js';
import { formatPrefix, type InterfaceFacts } from '../dataplane/snapshot.js';
import { emptySnapshot, type VppSnapshot } from '../hypervisor/snapshot.js';
import { execute } from '../reconcile/executor.js';
import { plan as makePlan } from '../reconcile/planner.js';
import type { Plan, Resource } from '../reconcile/resource.js';
import type { VppApi } from '../vpp/client/vpp-api.js';
import type { Message } from '../vpp/codec/schema.js';
import { VppnetError } from '../util/errors.js';
import { msg } from '../vpp/messages/index.js';
import { AclRegistry } from '../dataplane/acl-registry.js';
import { actualServices } from '../services/actual.js';
import { readPodGuards } from '../services/reading.js';
import { MACIP, type ServicesContext } from '../services/context.js';
import { podDescriptors } from '../services/descriptors.js';
import { isPodResource, podInterfaceName, podPortResources, type PodPortSpec } from '../services/pod-port.js';
import { POD_VETH_PREFIX } from '../services/pod-veth.js';
import type { DataplaneLock } from '../services/runtime.js';
import { NO_INDEX } from '../vpp/messages/sentinels.js';
import type { AttachmentTimer } from './attachment-timing.js';

/** The pod's port could not be put in place; `notReady` when the service bridge itself is missing. */
export class PodApplyError extends VppnetError<'VPPNET_ERR_POD_APPLY'> {
  readonly notReady: boolean;
  /** The errors of the operations that failed. */
  readonly causes: readonly Error[];
  constructor(message: string, notReady: boolean, causes: readonly Error[] = []) {
    super('VPPNET_ERR_POD_APPLY', message);
    this.name = 'PodApplyError';
    this.notReady = notReady;
    this.causes = causes;
  }
}

export interface PodDataplaneOptions {
  readonly client: VppApi;
  readonly host: HostLinks;
  readonly lock: DataplaneLock;
}

interface PodView {
  readonly ctx: ServicesContext;
  /** Everything read, as resources (the pod's and the bridge's). */
  readonly actual: readonly Resource[];
}

/** One apply or remove waiting for the next batch. */
interface PodJob {
  readonly podId: string;
  /** Undefined: remove the pod's port. */
  readonly apply?: { readonly pod: PodPortSpec; readonly services: ServicesConfig };
  readonly timer: AttachmentTimer | undefined;
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

export class PodDataplane {
  readonly #client: VppApi;
  readonly #host: HostLinks;
  readonly #lock: DataplaneLock;
  /** Applies and removes waiting for the dataplane lock; served together, one batch per turn. */
  #queue: PodJob[] = [];
  #scheduled = false;

  constructor(opts: PodDataplaneOptions) {
    this.#client = opts.client;
    this.#host = opts.host;
    this.#lock = opts.lock;
  }

  /**
   * Creates what VPP lacks of the pod's port and corrects what differs. Pods that arrive while the
   * dataplane lock is taken (a full reconcile, an earlier batch) are served together: one set of
   * dumps and their requests pipelined, instead of one lock turn each. Each pod still succeeds or
   * fails on its own.
   */
  apply(pod: PodPortSpec, services: ServicesConfig, timer?: AttachmentTimer): Promise<void> {
    return this.#enqueue(pod.id, { pod, services }, timer);
  }

  /** Removes every VPP object of the pod's port, found by its tag; nothing there is fine. */
  remove(podId: string, timer?: AttachmentTimer): Promise<void> {
    return this.#enqueue(podId, undefined, timer);
  }

  /** What differs between VPP and the pod's port, one line per operation a re-apply would run. */
  differences(pod: PodPortSpec, services: ServicesConfig): Promise<string[]> {
    return this.#lock.run(async () => {
      const desired = podPortResources(pod, services);
      const view = await this.#load([pod.id], desired);
      const plan = planPod(desired, view.actual, pod.id);
      return [
        ...plan.ops.map((o) => `${o.action} ${o.resource.key} (${o.reason})`),
        ...plan.pending.map((p) => `${p.resource.key} waits for ${p.waitingFor}`),
      ];
    });
  }

  #enqueue(podId: string, apply: PodJob['apply'], timer: AttachmentTimer | undefined): Promise<void> {
    timer?.enter('vpp_lock');
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ podId, ...(apply && { apply }), timer, resolve, reject });
      this.#schedule();
    });
  }

  /** One lock turn per batch, so a full reconcile waiting for the lock is not starved by pods. */
  #schedule(): void {
    if (this.#scheduled || this.#queue.length === 0) return;
    this.#scheduled = true;
    void this.#lock
      .run(async () => {
        const batch = this.#queue;
        this.#queue = [];
        this.#scheduled = false;
        await this.#serve(batch).catch((err: unknown) => {
          for (const job of batch) job.reject(err);
        });
      })
      .finally(() => this.#schedule());
  }

  async #serve(batch: readonly PodJob[]): Promise<void> {
    for (const job of batch) job.timer?.enter('vpp');
    const desiredOf = batch.map((job) =>
      job.apply ? podPortResources(job.apply.pod, job.apply.services) : [],
    );
    const view = await this.#load(
      batch.map((job) => job.podId),
      desiredOf.flat(),
    );
    await Promise.all(
      batch.map(async (job, i) => {
        try {
          if (job.apply) {
            const plan = planPod(desiredOf[i] ?? [], view.actual, job.podId);
            if (plan.pending.length > 0) {
              const why = plan.pending
                .map((p) => `${p.resource.key}: waiting for ${p.waitingFor}`)
                .join('; ');
              throw new PodApplyError(
                `the service bridge is not ready for pod port ${job.podId}: ${why}`,
                true,
              );
            }
            await run(plan, view.ctx, `pod port ${job.podId}`);
          } else {
            // The host link is the attachment manager's: it goes even while VPP is away.
            const mine = podResourcesOf(view.actual, job.podId).filter((r) => r.kind !== 'host-veth');
            await run(makePlan([], mine, podDescriptors), view.ctx, `pod port ${job.podId}`);
          }
          job.resolve();
        } catch (err) {
          job.reject(err);
        }
      }),
    );
  }

  /** VPP's interfaces, bridge domains and ACLs, with the details of these pods' own interfaces. */
  async #load(podIds: readonly string[], desired: readonly Resource[]): Promise<PodView> {
    const c = this.#client;
    const [ifDetails, aclDetails, bridgeDomains, hostLinks, afp, guards] = await Promise.all([
      c.dump(msg.sw_interface_dump, { sw_if_index: NO_INDEX, name_filter_valid: false }),
      c.supports(msg.acl_dump) ? c.dump(msg.acl_dump, { acl_index: NO_INDEX }) : Promise.resolve([]),
      c.dump(msg.bridge_domain_dump, { bd_id: NO_INDEX, sw_if_index: NO_INDEX }),
      this.#host.listVeths(POD_VETH_PREFIX),
      c.supports(msg.af_packet_dump) ? c.dump(msg.af_packet_dump, {}) : Promise.resolve([]),
      readPodGuards(c),
    ]);
    const interfaces = InterfaceRegistry.fromDump(ifDetails);
    const wanted = new Set(podIds);
    // The service BVI too: each pod's static neighbour is on it.
    const podInterfaces = ifDetails.filter((d) => {
      const pod = podOfTag(d.tag);
      return (pod !== undefined && wanted.has(pod)) || d.tag === tags.servicesBvi();
    });
    const facts = new Map<string, InterfaceFacts>();
    const taps = new Map<number, Message<typeof msg.sw_interface_tap_v2_details>>();
    const aclBindings: Message<typeof msg.acl_interface_list_details>[] = [];
    await Promise.all(
      podInterfaces.map(async (details) => {
        const idx = details.sw_if_index;
        const [table, v4, v6, bindings, tap] = await Promise.all([
          c.call(msg.sw_interface_get_table, { sw_if_index: idx, is_ipv6: false }),
          c.dump(msg.ip_address_dump, { sw_if_index: idx, is_ipv6: false }),
          c.dump(msg.ip_address_dump, { sw_if_index: idx, is_ipv6: true }),
          c.supports(msg.acl_interface_list_dump)
            ? c.dump(msg.acl_interface_list_dump, { sw_if_index: idx })
            : Promise.resolve([]),
          c.supports(msg.sw_interface_tap_v2_dump)
            ? c.dump(msg.sw_interface_tap_v2_dump, { sw_if_index: idx })
            : Promise.resolve([]),
        ]);
        facts.set(details.tag, {
          details,
          table: table.vrf_id,
          addresses: [...v4, ...v6].map((a) => formatPrefix(a.prefix)),
        });
        for (const t of tap) if (t.sw_if_index === idx) taps.set(idx, t);
        aclBindings.push(...bindings);
      }),
    );
    const podIndexes = new Set(podInterfaces.map((d) => d.sw_if_index));
    const afPacket = new Map(
      afp.filter((a) => podIndexes.has(a.sw_if_index)).map((a) => [a.sw_if_index, a.host_if_name]),
    );
    const snapshot: VppSnapshot = {
      ...emptySnapshot(),
      vppPid: c.vppPid,
      interfaces,
      interfaceFacts: facts,
      afPacket,
      taps,
      bridgeDomains,
      acls: aclDetails,
      aclBindings,
      ...guards,
    };
    const desiredKeys = new Set(desired.map((r) => r.key));
    const hostVeths = hostLinks.filter((n) => wanted.has(n));
    const actual = [
      ...actualDataplane(snapshot, { desiredKeys, hostVeths, hostVethPrefixes: [POD_VETH_PREFIX] }),
      ...actualServices(snapshot, { desiredKeys }),
    ];
    const ctx: ServicesContext = {
      client: c,
      interfaces,
      host: this.#host,
      files: NO_HOST_FILES,
      acls: AclRegistry.fromDump(aclDetails),
      macips: AclRegistry.fromDump(guards.macipAcls, MACIP),
    };
    return { ctx, actual };
  }
}

/** The pod's resources found in VPP: its interface, what hangs off it, its ACLs, its host link. */
function podResourcesOf(actual: readonly Resource[], podId: string): Resource[] {
  const ifKey = keys.interface(podInterfaceName(podId));
  const vethKey = keys.hostVeth(podId);
  return actual.filter((r) => r.key === ifKey || r.key === vethKey || isPodResource(r, { id: podId }));
}

/**
 * The pod's resources against what VPP has of them; the bridge domain and ACLs they use are
 * taken as given (external), so this plan can neither create nor delete them.
 */
function planPod(desired: readonly Resource[], actual: readonly Resource[], podId: string): Plan {
  const mine = podResourcesOf(actual, podId);
  const mineKeys = new Set(mine.map((r) => r.key));
  const used = new Set(desired.flatMap((r) => r.deps));
  const given = actual
    .filter((r) => used.has(r.key) && !mineKeys.has(r.key))
    .map((r) => ({ ...r, external: true }));
  return makePlan(desired, [...mine, ...given], podDescriptors);
}

async function run(plan: Plan, ctx: ServicesContext, what: string): Promise<void> {
  if (plan.ops.length === 0) return;
  const result = await execute(plan, podDescriptors, ctx);
  const problems = [
    ...result.failed.map((f) => `${f.op.action} ${f.op.resource.key}: ${f.error.message}`),
    ...result.skipped.map((s) => `${s.op.action} ${s.op.resource.key}: ${s.reason}`),
  ];
  if (problems.length > 0) {
    throw new PodApplyError(
      `${what}: ${problems.join('; ')}`,
      false,
      result.failed.map((f) => f.error),
    );
  }
}
