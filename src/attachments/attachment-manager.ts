/**
 * The agent side of vppnet-cni: plugging service pods into the service bridge and unplugging them.
 *
 * - Calls for one attachment run one at a time (keyed by its derived id and by netns + ifname).
 * - ADD: veth mode creates the pair into the netns (pod end = CNI_IFNAME), configures addresses and
 *   routes, then applies the pod's VPP resources (af_packet on the host end, bridge member, up,
 *   ACLs); tap mode lets VPP create a persistent tap in the netns, then configures it. Only this
 *   pod's resources are planned and applied, never a full reconcile. The attachment is recorded
 *   last (atomic file). Any failure undoes what this ADD did, newest first.
 * - DEL removes the record first (it is what makes an attachment desired), then VPP's objects (by
 *   their tag, derived from the attachment) and the host link (by its derived name), so it works
 *   with no record, no netns and after an agent restart, and repeated.
 * - Recorded attachments are part of every full reconcile's desired state, which is what brings
 *   pod ports back after a VPP restart; the ports of ADDs and DELs in progress are left alone. Attachments whose netns is gone are
 *   dropped: Multus never sends GC or STATUS to a NetworkAttachmentDefinition's plugin.
 */
import { AgentApiError, AgentErrorCode } from '../agent-api/errors.js';
import type {
  AgentInterface,
  AttachMode,
  AttachRequest,
  AttachResponse,
  AttachmentKey,
  AttachmentState,
  GcRequest,
} from '../agent-api/protocol.js';
import type { ServicesConfig } from '../config/model.js';
import type { HostLinks } from '../dataplane/context.js';
import { derivedMac } from '../dataplane/names.js';
import { hostVethName, ownedHostMac } from '../netns/index.js';
import { podInterfaceName, type PodPortMode, type PodPortSpec } from '../services/pod-port.js';
import type { DataplaneLock, PodAttachmentSource } from '../services/runtime.js';
import type { VppApi } from '../vpp/client/vpp-api.js';
import { isNoVhostNet, toAttachError, withUndoProblems } from './attach-error.js';
import { KeyedLocks } from './async-lock.js';
import { validateAttachRequest } from './attach-request.js';
import { serviceRoleOf } from '../services/service-role.js';
import { checkAddressClaims } from './address-claims.js';
import { AttachmentTimer } from './attachment-timing.js';
import type { AttachmentRecord, AttachmentStore } from './attachment-store.js';
import { PodDataplane } from './pod-dataplane.js';
import { linuxPodNetns, type PodNetns } from './pod-netns.js';

export interface AttachmentManagerOptions {
  readonly client: VppApi;
  readonly host: HostLinks;
  /** The owner's mark on host links (src/netns/link-owner.ts), the one `host` lists by. */
  readonly hostLinkOwner: string;
  /** Shared with the full reconcile of the same VPP. */
  readonly lock: DataplaneLock;
  readonly store: AttachmentStore;
  /** The service bridge as configured now; undefined while the node has none. */
  readonly services: () => ServicesConfig | undefined;
  readonly netns?: PodNetns;
  readonly clock?: () => number;
}

type EntryState = 'adding' | 'active' | 'removing';

/**
 * Attachments per CNI network on one node. A service network has one pod per node (two for a
 * moment in a rolling update); the bound stops a caller that loops on ADD from filling VPP and the
 * host with ports.
 */
export const MAX_ATTACHMENTS_PER_NETWORK = 16;

/** Size of tap_create_v3.host_namespace, terminating NUL included. */
const TAP_NETNS_MAX = 64;

interface Entry {
  record: AttachmentRecord;
  state: EntryState;
}

export class AttachmentManager implements PodAttachmentSource {
  readonly #client: VppApi;
  readonly #store: AttachmentStore;
  readonly #services: () => ServicesConfig | undefined;
  readonly #netns: PodNetns;
  readonly #clock: () => number;
  readonly #hostLinkOwner: string;
  readonly #pods: PodDataplane;
  readonly #locks = new KeyedLocks();
  readonly #entries = new Map<string, Entry>();
  /** Record files that could not be read at start-up (left in place for a human). */
  readonly loadProblems: readonly string[];

  private constructor(
    opts: AttachmentManagerOptions,
    records: readonly AttachmentRecord[],
    problems: readonly string[],
  ) {
    this.#client = opts.client;
    this.#store = opts.store;
    this.#services = opts.services;
    this.#netns = opts.netns ?? linuxPodNetns;
    this.#clock = opts.clock ?? Date.now;
    this.#hostLinkOwner = opts.hostLinkOwner;
    this.#pods = new PodDataplane({ client: opts.client, host: opts.host, lock: opts.lock });
    for (const record of records) this.#entries.set(record.id, { record, state: 'active' });
    this.loadProblems = problems;
  }

  /** A manager with the attachments recorded in the store. */
  static async open(opts: AttachmentManagerOptions): Promise<AttachmentManager> {
    const { records, problems } = await opts.store.loadAll();
    return new AttachmentManager(opts, records, problems);
  }

  async attach(request: AttachRequest): Promise<AttachResponse> {
    const req = validateAttachRequest(request);
    const id = hostVethName(req.containerId, req.ifname);
    const timer = new AttachmentTimer('attach', id);
    return timed(
      timer,
      this.#locks.run(lockKeys(id, req.netns, req.ifname), () => this.#attach(req, id, timer)),
    );
  }

  async #attach(req: AttachRequest, id: string, timer: AttachmentTimer): Promise<AttachResponse> {
    timer.enter('netns');
    const services = this.#services();
    if (!services)
      throw new AgentApiError(
        AgentErrorCode.TRY_AGAIN_LATER,
        'this node has no service bridge configured (services in the agent config)',
      );
    this.#requireVpp();
    if (this.#entries.has(id)) {
      throw new AgentApiError(
        AgentErrorCode.POD_IFNAME_EXISTS,
        `${req.ifname} of container ${req.containerId} is already attached`,
        `netns ${this.#entries.get(id)?.record.netns ?? ''}`,
      );
    }
    // The path first: a request naming /proc/1/ns/net is refused for what it names, unprobed.
    try {
      await this.#netns.admit(req.netns);
    } catch (err) {
      throw toAttachError(err);
    }
    if (!(await this.#netns.exists(req.netns))) {
      throw new AgentApiError(AgentErrorCode.NETNS_NOT_FOUND, `cannot open network namespace ${req.netns}`);
    }
    const mode = await this.#resolveMode(req.mode, req.netns);
    // Creating the veth pair finds a taken name by itself (one `ip` run less); VPP's tap does not.
    if (mode === 'tap' && (await this.#netns.linkExists(req.netns, req.ifname))) {
      throw new AgentApiError(
        AgentErrorCode.POD_IFNAME_EXISTS,
        `interface ${req.ifname} already exists in ${req.netns}`,
      );
    }
    try {
      return await this.#attachAs(req, id, services, mode, timer);
    } catch (err) {
      // `auto` saw /dev/vhost-net, but VPP (in its own container, say) could not open it.
      if (req.mode === 'auto' && mode === 'tap' && err instanceof AgentApiError && isNoVhostNet(err.cause)) {
        timer.enter('netns');
        return this.#attachAs(req, id, services, 'veth', timer);
      }
      throw err;
    }
  }

  /** One ADD in one mode; on failure everything it did is undone before the error is thrown. */
  async #attachAs(
    req: AttachRequest,
    id: string,
    services: ServicesConfig,
    mode: PodPortMode,
    timer: AttachmentTimer,
  ): Promise<AttachResponse> {
    const record: AttachmentRecord = {
      version: 1,
      network: req.network,
      containerId: req.containerId,
      ifname: req.ifname,
      netns: req.netns,
      mode,
      id,
      // In veth mode the pair's real MACs replace this below; a tap gets it from VPP.
      podMac: req.mac?.toLowerCase() ?? derivedMac(`${podInterfaceName(id)}:pod`),
      ...(req.mtu !== undefined && { mtu: req.mtu }),
      ips: req.ips,
      routes: req.routes,
      createdAt: new Date(this.#clock()).toISOString(),
    };
    // Checked and claimed with no await in between: two ADDs for one address cannot both pass.
    const sameNetwork = [...this.#entries.values()].filter((e) => e.record.network === req.network).length;
    if (sameNetwork >= MAX_ATTACHMENTS_PER_NETWORK)
      throw new AgentApiError(
        AgentErrorCode.INVALID_NETWORK_CONFIG,
        `network ${req.network} already has ${sameNetwork} attachments on this node, the most it may have`,
        'detach (or let GC collect) the pods that are gone',
      );
    checkAddressClaims(
      { id, network: req.network, ips: req.ips, routes: req.routes },
      services,
      [...this.#entries.values()].map((e) => e.record),
    );
    // In progress from here on: a full reconcile running meanwhile leaves what this ADD creates alone.
    const entry: Entry = { record, state: 'adding' };
    this.#entries.set(id, entry);
    const undo: { what: string; run: () => Promise<unknown> }[] = [];
    try {
      const addresses = req.ips.map((ip) => ip.address);
      const routes = req.routes.map((r) => (r.gw === undefined ? { dst: r.dst } : { dst: r.dst, gw: r.gw }));
      if (mode === 'veth') {
        // The pair, its pod end configured, in one step.
        const veth = await this.#netns.createVeth({
          hostName: id,
          netnsPath: req.netns,
          podIfName: req.ifname,
          hostMac: ownedHostMac(this.#hostLinkOwner, id),
          addresses,
          routes,
          ...(req.mtu !== undefined && { mtu: req.mtu }),
          ...(req.mac !== undefined && { mac: req.mac }),
        });
        undo.push({ what: `delete host link ${id}`, run: () => this.#netns.deleteHostLink(id) });
        entry.record = { ...record, podMac: veth.podMac, hostMac: veth.hostMac, mtu: veth.mtu };
        undo.push({ what: `remove pod port ${id} from VPP`, run: () => this.#pods.remove(id) });
        await this.#pods.apply(specOf(entry.record, services), services, timer);
      } else {
        // VPP clears a tap's persistence when it deletes it or fails to create it, so its device
        // goes too; should one stay behind anyway, the name was free when this ADD began.
        undo.push({
          what: `delete ${req.ifname} in ${req.netns}`,
          run: () => this.#deleteTapDevice(req.netns, req.ifname),
        });
        undo.push({ what: `remove pod port ${id} from VPP`, run: () => this.#pods.remove(id) });
        await this.#pods.apply(specOf(entry.record, services), services, timer);
        timer.enter('netns');
        await this.#netns.configure({ netnsPath: req.netns, ifname: req.ifname, addresses, routes });
      }
      timer.enter('record');
      await this.#store.save(entry.record);
      undo.push({ what: `forget attachment ${id}`, run: () => this.#store.remove(id) });
      entry.state = 'active';
      return { interfaces: interfacesOf(entry.record), mode };
    } catch (err) {
      entry.state = 'removing';
      const failedUndo: string[] = [];
      for (const step of undo.reverse()) {
        try {
          await step.run();
        } catch (undoErr) {
          failedUndo.push(`${step.what}: ${(undoErr as Error).message}`);
        }
      }
      this.#entries.delete(id);
      throw withUndoProblems(toAttachError(err), failedUndo);
    }
  }

  async detach(key: AttachmentKey): Promise<void> {
    if (!key.containerId || !key.ifname)
      throw new AgentApiError(AgentErrorCode.INVALID_NETWORK_CONFIG, 'containerId and ifname are required');
    const id = hostVethName(key.containerId, key.ifname);
    const netns = this.#entries.get(id)?.record.netns ?? key.netns;
    const timer = new AttachmentTimer('detach', id);
    return timed(
      timer,
      this.#locks.run(lockKeys(id, netns, key.ifname), () => this.#detach(id, timer)),
    );
  }

  async #detach(id: string, timer: AttachmentTimer): Promise<void> {
    timer.enter('record');
    const entry = this.#entries.get(id);
    if (entry) entry.state = 'removing';
    const problems: string[] = [];
    try {
      // The record goes first: whatever remains after a failure below is no longer desired, so
      // the next full reconcile removes it even if the runtime never repeats this DEL.
      await this.#store.remove(id);
      if (this.#client.state === 'ready') {
        await this.#pods.remove(id, timer).catch((err: Error) => problems.push(err.message));
      }
      timer.enter('netns');
      // While VPP is away its objects wait for the resync; the host link cannot wait (it holds
      // the pod's interface name).
      if (entry?.record.mode === 'tap') {
        // A persistent tap outlives VPP: after a VPP crash its device is still in the netns.
        const { netns, ifname } = entry.record;
        await this.#deleteTapDevice(netns, ifname).catch((err: Error) => problems.push(err.message));
      } else {
        await this.#netns.deleteHostLink(id).catch((err: Error) => problems.push(err.message));
      }
    } finally {
      this.#entries.delete(id);
    }
    if (problems.length > 0) {
      throw new AgentApiError(
        AgentErrorCode.TRY_AGAIN_LATER,
        `attachment ${id} was only partly removed`,
        problems.join('; '),
      );
    }
  }

  async check(key: AttachmentKey): Promise<AttachmentState> {
    const id = hostVethName(key.containerId, key.ifname);
    const entry = this.#entries.get(id);
    const netns = entry?.record.netns ?? key.netns;
    return this.#locks.run(lockKeys(id, netns, key.ifname), async () => {
      const current = this.#entries.get(id);
      if (!current || current.state !== 'active') {
        throw new AgentApiError(
          AgentErrorCode.ATTACHMENT_NOT_FOUND,
          `no attachment of ${key.ifname} for container ${key.containerId}`,
        );
      }
      const record = current.record;
      if (!(await this.#netns.exists(record.netns))) {
        throw new AgentApiError(
          AgentErrorCode.NETNS_NOT_FOUND,
          `cannot open network namespace ${record.netns}`,
        );
      }
      let pod;
      try {
        pod = await this.#netns.read(record.netns, record.ifname);
      } catch (err) {
        throw toAttachError(err);
      }
      const services = this.#services();
      if (services && this.#client.state === 'ready') {
        const differences = await this.#pods.differences(specOf(record, services), services);
        if (differences.length > 0) {
          throw new AgentApiError(
            AgentErrorCode.INTERNAL,
            `VPP's port for ${record.ifname} of ${record.containerId} is not as attached`,
            differences.join('; '),
          );
        }
      }
      return {
        containerId: record.containerId,
        ifname: record.ifname,
        netns: record.netns,
        mode: record.mode,
        interfaces: interfacesOf(record),
        podInterface: { name: pod.name, mac: pod.mac, up: pod.up, addresses: pod.addresses },
      };
    });
  }

  /** Removes every attachment of `request.network` that is not in its list of valid ones. */
  async gc(request: GcRequest): Promise<void> {
    const keep = new Set(request.validAttachments.map((v) => hostVethName(v.containerID, v.ifname)));
    const problems: string[] = [];
    for (const entry of [...this.#entries.values()]) {
      if (entry.state !== 'active' || entry.record.network !== request.network || keep.has(entry.record.id))
        continue;
      await this.detach(entry.record).catch((err: Error) => problems.push(err.message));
    }
    if (problems.length > 0)
      throw new AgentApiError(
        AgentErrorCode.TRY_AGAIN_LATER,
        'some attachments could not be removed',
        problems.join('; '),
      );
  }

  /** Recorded attachments. */
  list(): AttachmentRecord[] {
    return [...this.#entries.values()].filter((e) => e.state === 'active').map((e) => e.record);
  }

  /** Whether `id` (a host link name) is a recorded attachment no call is working on. */
  isActive(id: string): boolean {
    return this.#entries.get(id)?.state === 'active';
  }

  desiredPods(): PodPortSpec[] {
    const services = this.#services();
    return [...this.#entries.values()]
      .filter((e) => e.state === 'active')
      .map((e) => specOf(e.record, services));
  }

  podsInProgress(): string[] {
    return [...this.#entries.values()].filter((e) => e.state !== 'active').map((e) => e.record.id);
  }

  /**
   * Drops the records of attachments whose netns is gone (the pod was deleted without a DEL
   * reaching us); their VPP objects are left to the full reconcile that follows. A veth's host
   * link goes here: the kernel takes the pair with the netns (sooner or later) but, since 6.16,
   * not its ingress chain (src/netns/host-end.ts), which the pass never sees once the link is
   * gone. A chain a failure leaves hooks nothing.
   */
  async forgetVanished(): Promise<readonly string[]> {
    const gone: string[] = [];
    for (const entry of [...this.#entries.values()]) {
      if (entry.state !== 'active' || (await this.#netns.exists(entry.record.netns))) continue;
      const { id, netns, ifname } = entry.record;
      await this.#locks.run(lockKeys(id, netns, ifname), async () => {
        const current = this.#entries.get(id);
        if (current?.state !== 'active' || (await this.#netns.exists(netns))) return;
        await this.#store.remove(id);
        if (current.record.mode !== 'tap') await this.#netns.deleteHostLink(id).catch(() => false);
        this.#entries.delete(id);
        gone.push(id);
      });
    }
    return gone;
  }

  /** Like forgetVanished, and removes their VPP objects and host links right away (a DEL each). */
  async pruneVanished(): Promise<readonly string[]> {
    const gone: string[] = [];
    for (const entry of [...this.#entries.values()]) {
      if (entry.state !== 'active' || (await this.#netns.exists(entry.record.netns))) continue;
      await this.detach(entry.record);
      gone.push(entry.record.id);
    }
    return gone;
  }

  async #deleteTapDevice(netns: string, ifname: string): Promise<void> {
    if (await this.#netns.exists(netns)) await this.#netns.deleteLink(netns, ifname);
  }

  async #resolveMode(mode: AttachMode, netns: string): Promise<PodPortMode> {
    // tap_create_v3 carries the netns path in a 64-byte string: a longer one would be cut short.
    const tapFits = Buffer.byteLength(netns) < TAP_NETNS_MAX;
    if (mode === 'tap' && !tapFits) {
      throw new AgentApiError(
        AgentErrorCode.INVALID_NETWORK_CONFIG,
        `netns path too long for a VPP tap (${TAP_NETNS_MAX - 1} bytes at most)`,
        netns,
      );
    }
    if (mode !== 'auto') return mode;
    return tapFits && (await this.#netns.vhostNetAvailable()) ? 'tap' : 'veth';
  }

  #requireVpp(): void {
    if (this.#client.state !== 'ready') {
      throw new AgentApiError(AgentErrorCode.TRY_AGAIN_LATER, `VPP is not connected (${this.#client.state})`);
    }
  }
}

/** Publishes the call's timing with its outcome, whichever way it ends. */
async function timed<T>(timer: AttachmentTimer, call: Promise<T>): Promise<T> {
  try {
    const result = await call;
    timer.finish('ok');
    return result;
  } catch (err) {
    timer.finish(err instanceof AgentApiError ? err.code : AgentErrorCode.INTERNAL);
    throw err;
  }
}

function lockKeys(id: string, netns: string, ifname: string): string[] {
  return netns === '' ? [`id:${id}`] : [`id:${id}`, `netns:${netns}\0${ifname}`];
}

/** A recorded attachment as a pod port, its role under the service bridge in force. */
export function specOf(record: AttachmentRecord, services: ServicesConfig | undefined): PodPortSpec {
  const ips = record.ips.map((ip) => ip.address.slice(0, ip.address.indexOf('/')));
  const role = services === undefined ? undefined : serviceRoleOf(record.network, ips, services);
  return {
    id: record.id,
    mode: record.mode,
    netns: record.netns,
    ifname: record.ifname,
    podMac: record.podMac,
    ips,
    role,
    // Only a tap takes it from VPP; a veth pair got it when it was made.
    ...(record.mode === 'tap' && record.mtu !== undefined && { mtu: record.mtu }),
  };
}

function interfacesOf(record: AttachmentRecord): AgentInterface[] {
  const pod: AgentInterface = {
    name: record.ifname,
    mac: record.podMac,
    sandbox: record.netns,
    ...(record.mtu !== undefined && { mtu: record.mtu }),
  };
  if (record.mode === 'veth' && record.hostMac !== undefined) {
    return [
      { name: record.id, mac: record.hostMac, ...(record.mtu !== undefined && { mtu: record.mtu }) },
      pod,
    ];
  }
  return [pod];
}
