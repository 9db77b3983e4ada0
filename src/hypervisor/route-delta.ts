/**
 * A reconcile pass for remote-route changes only (a VM started, stopped or moved on another
 * node): it dumps nothing and costs O(1) VPP operations per change. What VPP holds comes from the
 * SteeringModel a converged full pass left (steering-model.ts); the changed entries and the
 * policies they use make a small desired and actual state, built with the same kinds as the full
 * pass, and the one planner and executor turn one into the other. Per change: the steering entry
 * is created, re-pointed (an update: VPP re-adds in place) or deleted; a new remote SID first gets
 * its policy; a policy left with no entry is deleted after its last one, by a second plan.
 *
 * The delta and the full pass agree: right after a delta, a full pass over the config with the
 * same routes plans nothing. Any op that fails or is skipped leaves the model invalid; the caller
 * then drops it and runs a full pass.
 */
import type { AgentConfig, VpcConfig } from '../config/model.js';
import { NO_HOST_FILES, type DataplaneContext, type HostLinks } from '../dataplane/context.js';
import { InterfaceRegistry } from '../dataplane/interface-registry.js';
import { ipTableDescriptor } from '../dataplane/ip-descriptors.js';
import { tableNames } from '../dataplane/keys.js';
import { SteeringEntries } from '../srv6/steering-entries.js';
import { canonicalIp6, ip6InPrefix, isIp4, isIp6, type Ip4Prefix, type Ip6Prefix } from '../net/ip.js';
import { hostBitsProblem } from '../net/network-prefix.js';
import { execute, type ExecutionResult } from '../reconcile/executor.js';
import { plan as makePlan } from '../reconcile/planner.js';
import { KindRegistry } from '../reconcile/registry.js';
import type { Plan, Resource } from '../reconcile/resource.js';
import {
  encapSourceDescriptor,
  hopLimitDescriptor,
  policyDescriptor,
  type PolicyValue,
} from '../srv6/descriptors.js';
import { srv6Domain } from '../srv6/domain.js';
import { addRouteSteering } from '../srv6/desired-steering.js';
import { compareSteeringSides, type SteeringSides } from '../srv6/steering-resources.js';
import { allocateBsids } from '../srv6/bsid-allocation.js';
import { VppnetError } from '../util/errors.js';
import type { VppApi } from '../vpp/client/vpp-api.js';
import { SteeringModel } from './steering-model.js';

export { SteeringModel, type SteeringModelBasis } from './steering-model.js';

/**
 * One remote route's new state: its prefix in a VPC steers to a remote node's SID, or is gone. The
 * prefix's address says the family: an IPv6 one steers in the VPC's IPv6 table.
 */
export interface RemoteRouteChange {
  readonly vpc: string;
  readonly prefix: Ip4Prefix | Ip6Prefix;
  /** The remote node's End.DT4 SID for the VPC (End.DT6 for IPv6); undefined: the route is gone. */
  readonly sid: string | undefined;
}

export interface RouteDeltaOptions {
  readonly client: VppApi;
  /** Stops before the next batch of ops when it returns true (the model is then invalid). */
  readonly shouldStop?: () => boolean;
}

export interface RouteDeltaOutcome {
  readonly plan: Plan;
  readonly result: ExecutionResult;
  /**
   * Whether the model still says what VPP holds. False when an op failed or was skipped: the
   * model is invalidated (its invalidReason names the op and VPP's error) and a full pass is due.
   */
  readonly modelValid: boolean;
}

/** A change that cannot be applied to this node's config (a VPC it does not have, a bad prefix). */
export class RouteChangeError extends VppnetError<'VPPNET_ERR_ROUTE_CHANGE'> {
  constructor(message: string) {
    super('VPPNET_ERR_ROUTE_CHANGE', message);
    this.name = 'RouteChangeError';
  }
}

/** The model cannot serve this delta (invalid, another VPP process, another config): run a full pass. */
export class SteeringModelError extends VppnetError<'VPPNET_ERR_STEERING_MODEL'> {
  constructor(message: string) {
    super('VPPNET_ERR_STEERING_MODEL', `${message}: run a full pass`);
    this.name = 'SteeringModelError';
  }
}

/** The kinds a delta can touch: the overlay's (policies, steering, the globals) and the tables. */
const routeDeltaKinds = new KindRegistry<DataplaneContext>().register(ipTableDescriptor, ...srv6Domain.kinds);

/** None of the delta's kinds touches host links: any use is a bug and says so. */
const NO_HOST_LINKS: HostLinks = {
  createVeth: (spec) => Promise.reject(new Error(`no host links in a route delta (veth ${spec.hostName})`)),
  deleteVeth: (name) => Promise.reject(new Error(`no host links in a route delta (veth ${name})`)),
  listVeths: (prefix) => Promise.reject(new Error(`no host links in a route delta (veths ${prefix})`)),
  keepIsolated: () => Promise.reject(new Error('no host links in a route delta')),
};

/** One (table, prefix) the batch changes, with what VPP has (the model's) and what it should have. */
interface ChangedEntry {
  readonly vpc: VpcConfig;
  readonly prefix: Ip4Prefix | Ip6Prefix;
  readonly ip6: boolean;
  readonly before: string | undefined;
  readonly after: string | undefined;
}

/**
 * Applies remote-route changes to VPP through `model`, which it updates in place once VPP
 * confirmed every op. Only `config.node` and `config.vpcs` are read (its remoteRoutes may be
 * those before or after the changes). Of several changes to one (vpc, prefix), the last wins; a
 * change VPP already has costs nothing. Throws RouteChangeError for bad input and
 * SteeringModelError for a model that cannot serve the delta, both before any VPP operation.
 */
export async function reconcileRouteChanges(
  config: AgentConfig,
  model: SteeringModel,
  changes: readonly RemoteRouteChange[],
  opts: RouteDeltaOptions,
): Promise<RouteDeltaOutcome> {
  checkModel(config, model, opts.client);
  const changed = changedEntries(config, model, changes);
  const { encapSource, hopLimit, bsidPrefix } = config.node.srv6;

  // The changed entries as desiredSteering builds them, VPP's and the batch's, first to the
  // remote SIDs: given their BSIDs once new SIDs have theirs.
  const steeringSides = (): SteeringSides => ({
    steering: new SteeringEntries(Math.max(1, changed.length)),
    steering6: new SteeringEntries(Math.max(1, changed.length), 6),
  });
  const before = steeringSides();
  const after = steeringSides();
  for (const e of changed) {
    if (e.before !== undefined) addRouteSteering(before, e.vpc.table, e.prefix, e.ip6, e.before);
    if (e.after !== undefined) addRouteSteering(after, e.vpc.table, e.prefix, e.ip6, e.after);
  }
  // Entries per remote SID once the batch is applied, for every SID the batch touches (an IPv6
  // /0 is two entries).
  const uses = new Map<string, number>();
  const count = (side: SteeringSides, by: number): void => {
    for (const entries of [side.steering, side.steering6])
      for (let i = 0; i < entries.size; i++) {
        const sid = entries.bsid(i);
        uses.set(sid, (uses.get(sid) ?? model.usesOf(sid)) + by);
      }
  };
  count(before, -1);
  count(after, 1);
  const newBsids = allocateNewBsids(
    model,
    [...uses.keys()].filter((sid) => model.bsidOf(sid) === undefined),
    bsidPrefix,
  );
  const bsidOf = (sid: string): string => model.bsidOf(sid) ?? (newBsids.get(sid) as string);

  // Both sides hold what the changed entries depend on, as in place: the delta never changes it.
  const inPlace: Resource[] = [
    encapSourceDescriptor.resource({ address: encapSource }),
    hopLimitDescriptor.resource({ hopLimit }),
  ];
  const families = new Map<VpcConfig, number>(); // VPC → 1: its IPv4 table, 2: its IPv6 table
  for (const e of changed) families.set(e.vpc, (families.get(e.vpc) ?? 0) | (e.ip6 ? 2 : 1));
  for (const [vpc, f] of families) {
    const name = tableNames.vpc(vpc.name);
    if (f & 1) inPlace.push(ipTableDescriptor.resource({ table: vpc.table, ip6: false, name }));
    if (f & 2) inPlace.push(ipTableDescriptor.resource({ table: vpc.table, ip6: true, name }));
  }
  // The policies as desiredOverlay builds them.
  const policy = (sid: string): Resource => policyResource(sid, bsidOf(sid), encapSource);
  const emptied = [...uses].filter(([, n]) => n === 0).map(([sid]) => policy(sid));

  // 1. The entries, with the policies they leave and go to. A policy they all leave stays in place
  //    here: deleting it in the same plan would take its entries along (the planner deletes a
  //    policy's dependents first), so re-pointed entries would be deleted and created again.
  const desired = [...inPlace, ...emptied];
  const actual = [...inPlace];
  for (const [sid, n] of uses) {
    if (n > 0) desired.push(policy(sid));
    if (model.bsidOf(sid) !== undefined) actual.push(policy(sid));
  }
  const withBsids = (side: SteeringSides): SteeringSides => {
    const retarget = (entries: SteeringEntries): SteeringEntries =>
      entries.withBsids(entries.bsids.map(bsidOf));
    return { steering: retarget(side.steering), steering6: retarget(side.steering6) };
  };
  const ctx: DataplaneContext = {
    client: opts.client,
    interfaces: new InterfaceRegistry(),
    host: NO_HOST_LINKS,
    files: NO_HOST_FILES,
  };
  const entries = makePlan(
    desired,
    actual,
    routeDeltaKinds,
    compareSteeringSides(withBsids(after), withBsids(before)),
  );
  let run = await runPlan(entries, ctx, model, opts);
  // 2. The policies no entry points at any more, once nothing points at them.
  if (run.modelValid && emptied.length > 0) {
    const policies = makePlan(inPlace, [...inPlace, ...emptied], routeDeltaKinds);
    run = joined(run, await runPlan(policies, ctx, model, opts));
  }
  if (!run.modelValid) return run;

  for (const [sid, bsid] of newBsids) model.addPolicy(sid, bsid);
  for (const e of changed) model.setEntry(e.vpc.table, e.prefix, e.after);
  for (const [sid, n] of uses) if (n === 0) model.deletePolicy(sid);
  return run;
}

/**
 * The last policy Resource made per remote SID: a busy node's batches name the same few thousand
 * SIDs again and again, and each delta put every SID it touched on both sides of its plan, built
 * anew. Reused only while the BSID and encap source are the same; bounded as checkedSids is.
 */
const policyResources = new Map<string, Resource<PolicyValue>>();
const POLICY_RESOURCES_MAX = 65_536;

function policyResource(sid: string, bsid: string, encapSource: string): Resource<PolicyValue> {
  const known = policyResources.get(sid);
  if (known !== undefined && known.value.bsid === bsid && known.value.encapSource === encapSource)
    return known;
  const made = policyDescriptor.resource({ bsid, sids: [sid], encapSource, fibTable: 0 });
  if (policyResources.size >= POLICY_RESOURCES_MAX) policyResources.clear();
  policyResources.set(sid, made);
  return made;
}

/** Executes one plan; anything not done (failed, skipped, pending) invalidates the model. */
async function runPlan(
  plan: Plan,
  ctx: DataplaneContext,
  model: SteeringModel,
  opts: RouteDeltaOptions,
): Promise<RouteDeltaOutcome> {
  let result: ExecutionResult;
  try {
    result = await execute(
      plan,
      routeDeltaKinds,
      ctx,
      opts.shouldStop ? { shouldStop: opts.shouldStop } : {},
    );
  } catch (err) {
    model.invalidate(`route delta failed: ${(err as Error).message}`);
    throw err;
  }
  const failure = result.failed[0];
  const skip = result.skipped[0];
  const pending = plan.pending[0];
  if (failure) model.invalidate(`${failure.op.action} ${failure.op.key} failed: ${failure.error.message}`);
  else if (skip) model.invalidate(`${skip.op.action} ${skip.op.key} skipped: ${skip.reason}`);
  else if (pending) model.invalidate(`${pending.resource.key} pending: ${pending.waitingFor}`);
  return { plan, result, modelValid: !failure && !skip && !pending };
}

/** Two plans run one after the other, as one outcome. */
function joined(a: RouteDeltaOutcome, b: RouteDeltaOutcome): RouteDeltaOutcome {
  const unchangedByKind = new Map(a.plan.unchangedByKind);
  for (const [kind, n] of b.plan.unchangedByKind)
    unchangedByKind.set(kind, (unchangedByKind.get(kind) ?? 0) + n);
  return {
    plan: {
      ops: [...a.plan.ops, ...b.plan.ops],
      pending: [...a.plan.pending, ...b.plan.pending],
      unchanged: a.plan.unchanged + b.plan.unchanged,
      unchangedByKind,
    },
    result: {
      applied: a.result.applied + b.result.applied,
      failed: [...a.result.failed, ...b.result.failed],
      skipped: [...a.result.skipped, ...b.result.skipped],
    },
    modelValid: a.modelValid && b.modelValid,
  };
}

function checkModel(config: AgentConfig, model: SteeringModel, client: VppApi): void {
  if (!model.valid) throw new SteeringModelError(`the steering model is invalid (${model.invalidReason})`);
  const { basis } = model;
  if (client.vppPid !== basis.vppPid) {
    model.invalidate(`VPP process ${client.vppPid} is not the model's (${basis.vppPid})`);
    throw new SteeringModelError(
      `the steering model is of VPP process ${basis.vppPid}, the client is connected to ${client.vppPid}`,
    );
  }
  const { srv6 } = config.node;
  const differs =
    srv6.encapSource !== basis.encapSource
      ? 'encap source'
      : srv6.hopLimit !== basis.hopLimit
        ? 'hop limit'
        : srv6.bsidPrefix.address !== basis.bsidPrefix.address || srv6.bsidPrefix.len !== basis.bsidPrefix.len
          ? 'BSID prefix'
          : undefined;
  if (differs) throw new SteeringModelError(`the config's SRv6 ${differs} is not the steering model's`);
}

/** The changes that differ from the model, one per (table, prefix), validated first: bad input changes nothing. */
function changedEntries(
  config: AgentConfig,
  model: SteeringModel,
  changes: readonly RemoteRouteChange[],
): ChangedEntry[] {
  const vpcByName = new Map(config.vpcs.map((v) => [v.name, v]));
  const { locator } = config.node.srv6;
  const latest = new Map<
    string,
    { vpc: VpcConfig; prefix: Ip4Prefix | Ip6Prefix; ip6: boolean; sid: string | undefined }
  >();
  changes.forEach((change, i) => {
    // Only for an error: made for every change, it was most of what this loop allocated.
    const path = (): string => `route change ${i} (${describe(change)})`;
    const vpc = vpcByName.get(change.vpc);
    if (!vpc)
      throw new RouteChangeError(
        `${path()}: vpc: no VPC named ${JSON.stringify(change.vpc)} in this node's config`,
      );
    const table = model.basis.tables.get(vpc.name);
    if (table !== vpc.table) {
      throw new SteeringModelError(
        table === undefined
          ? `VPC ${vpc.name} is not in the steering model`
          : `VPC ${vpc.name} has table ${vpc.table} in the config, ${table} in the steering model`,
      );
    }
    const { prefix, ip6 } = checkedPrefix(path, change.prefix);
    // Steering into a table VPP does not have crashes VPP 26.06 (docs/dual-stack.md, trap 1).
    if (ip6 && vpc.subnets6.length === 0)
      throw new RouteChangeError(`${path()}: prefix: VPC ${vpc.name} has no IPv6 subnet`);
    if (ip6 && !model.basis.ip6Vpcs.has(vpc.name))
      throw new SteeringModelError(`VPC ${vpc.name} has no IPv6 table in the steering model`);
    if (!ip6 && vpc.subnets.length === 0)
      throw new RouteChangeError(`${path()}: prefix: VPC ${vpc.name} has no IPv4 subnet`);
    let sid: string | undefined;
    if (change.sid !== undefined) {
      const checked = checkedSid(change.sid, locator);
      if (checked.problem !== undefined) throw new RouteChangeError(`${path()}: sid: ${checked.problem}`);
      sid = checked.sid;
    }
    latest.set(`${vpc.table}:${prefix.address}/${prefix.len}`, { vpc, prefix, ip6, sid });
  });
  const out: ChangedEntry[] = [];
  for (const { vpc, prefix, ip6, sid } of latest.values()) {
    const before = model.sidAt(vpc.table, prefix);
    if (before !== sid) out.push({ vpc, prefix, ip6, before, after: sid });
  }
  return out;
}

type CheckedSid = { readonly sid: string; readonly problem?: undefined } | { readonly problem: string };

/**
 * Per locator, the SIDs checked so far: a batch of thousands of changes names a few dozen remote
 * SIDs (one per node and VPC), and each check parsed and formatted one IPv6 address three times.
 * Bounded: cleared when it grows past CHECKED_SIDS_MAX.
 */
const checkedSids = new WeakMap<Ip6Prefix, Map<string, CheckedSid>>();
const CHECKED_SIDS_MAX = 65_536;
const NOT_IP6: CheckedSid = { problem: 'must be an IPv6 address' };

/** A change's SID, canonical, or why it is refused (it must be IPv6, outside the own locator). */
function checkedSid(given: unknown, locator: Ip6Prefix): CheckedSid {
  if (typeof given !== 'string') return NOT_IP6;
  let known = checkedSids.get(locator);
  if (known === undefined) checkedSids.set(locator, (known = new Map<string, CheckedSid>()));
  let checked = known.get(given);
  if (checked === undefined) {
    const sid = isIp6(given) ? canonicalIp6(given) : undefined;
    checked =
      sid === undefined
        ? NOT_IP6
        : ip6InPrefix(sid, locator)
          ? { problem: "is inside this node's own locator" }
          : { sid };
    if (known.size >= CHECKED_SIDS_MAX) known.clear();
    known.set(given, checked);
  }
  return checked;
}

/** The change's prefix, IPv4 or IPv6, its address canonical; a RouteChangeError when malformed. */
function checkedPrefix(
  path: () => string,
  prefix: Ip4Prefix | Ip6Prefix,
): { readonly prefix: Ip4Prefix | Ip6Prefix; readonly ip6: boolean } {
  const { address, len } = prefix;
  const ip6 = typeof address === 'string' && isIp6(address);
  if (!(ip6 || (typeof address === 'string' && isIp4(address))) || !Number.isInteger(len) || len < 0)
    throw new RouteChangeError(`${path()}: prefix: must be an IPv4 or IPv6 prefix like 10.0.0.0/24`);
  if (!ip6) {
    if (len > 32) throw new RouteChangeError(`${path()}: prefix: an IPv4 prefix is at most /32`);
    const hostBits = hostBitsProblem(prefix, 4);
    if (hostBits !== undefined) throw new RouteChangeError(`${path()}: prefix: ${hostBits}`);
    return { prefix: { address, len }, ip6 };
  }
  if (len > 128) throw new RouteChangeError(`${path()}: prefix: an IPv6 prefix is at most /128`);
  const hostBits = hostBitsProblem(prefix, 6);
  if (hostBits !== undefined) throw new RouteChangeError(`${path()}: prefix: ${hostBits}`);
  return { prefix: { address: canonicalIp6(address), len }, ip6 };
}

function describe(change: RemoteRouteChange): string {
  const prefix = change.prefix as Partial<Ip4Prefix | Ip6Prefix> | undefined;
  return `${String(change.vpc)} ${String(prefix?.address)}/${String(prefix?.len)} → ${change.sid ?? 'gone'}`;
}

/**
 * BSIDs for remote SIDs that have no policy yet, by the full pass's allocator (bsid-allocation.ts),
 * with every BSID the model holds reserved.
 */
function allocateNewBsids(
  model: SteeringModel,
  sids: readonly string[],
  block: Ip6Prefix,
): Map<string, string> {
  if (sids.length === 0) return new Map();
  return allocateBsids([...sids].sort(), block, undefined, model.policies().values());
}
