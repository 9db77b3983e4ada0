/**
 * One node's desired state from the fleet's records, for the agent: the full derivation when
 * anything but remote routes changed, and otherwise only the remote routes that changed, so that
 * one endpoint change costs one route, not a derivation of 100k.
 *
 * It owns the node's DatastoreView and follows its batches of changed records:
 * - the node's own record, its ports, a VPC record (and with the ports, the VPC scope) are
 *   structural: the agent derives the whole config again and runs a full pass;
 * - an endpoint of a VPC live in the last derived config marks its route;
 * - another node's record whose locator changed, or that came or went, marks the routes of the
 *   endpoints it hosts, found by one scan of the live VPCs' endpoint tables per batch (node
 *   records change rarely; an index node → endpoint keys cost a map entry per endpoint).
 * takeChanges() then asks remoteRouteOf (derive.ts, the full derivation's own rule) about each
 * marked endpoint once, and hands over the routes that differ from what the agent holds: the
 * last derived config's routes plus the changes taken since. A burst that writes a key many
 * times between two takes is one change with the latest state.
 *
 * A VPC the last derivation left out (no record, broken, or all its ports dropped) has no routes
 * here: it can only come back through a structural change. A value the view rejects changes
 * nothing (its last good record stays), so it is neither structural nor a route change.
 */
import type { RemoteRouteChange } from '../hypervisor/route-delta.js';
import type { Ip4Prefix } from '../net/ip.js';
import { nextTurn } from '../util/next-turn.js';
import {
  deriveAgentConfig,
  fleetSources,
  OPEN_LANES,
  remoteRouteOf,
  type Derivation,
  type NodeView,
  type RouteLanes,
} from './derive.js';
import { HeldRoutes } from './held-routes.js';
import { refusedNodes, sameRefusals } from './node-lanes.js';
import type { KeySchema } from './keys.js';
import type { NodeRecord, RecordProblem } from './records.js';
import type { KeyValueStore } from './store.js';
import { DatastoreView, type ViewChange, type ViewHealth, type ViewOptions } from './view.js';

export type { RemoteRouteChange };

export interface FleetChanges {
  /**
   * Anything but remote routes changed (own node record, own ports, a VPC record, the VPC scope):
   * derive() the whole config and run a full pass. It stays true until derive() is called.
   */
  readonly structural: boolean;
  /**
   * Remote routes changed since the last take, the latest state per (vpc, prefix), for the VPCs
   * of the last derived config only; sid undefined: the route is gone. Empty when structural.
   */
  readonly routes: readonly RemoteRouteChange[];
}

export interface FleetSourceOptions {
  /**
   * Called after a batch of the view that left something pending, once until the next
   * takeChanges() or derive(): the owner coalesces by taking when it is ready, not per call.
   */
  readonly onChange: () => void;
  readonly onRejected?: ViewOptions['onRejected'];
  readonly backoff?: ViewOptions['backoff'];
  readonly timers?: ViewOptions['timers'];
}

export class FleetSource {
  readonly #records: DatastoreView;
  /** Calls of the route rule by takeChanges (not by derive): what an incremental step cost. */
  routeEvaluations = 0;
  /** Nothing derived yet, or a structural change since the last derive(). */
  #structural = true;
  /** The fleet's SRv6 sources the last derivation saw (fleetSources); undefined before it. */
  #lastConfigSources: readonly string[] | undefined;
  /** The VPCs of the last derived config: only their endpoints have routes. */
  #live = new Set<string>();
  /**
   * The routes the agent holds, by endpoint key: the last derive's plus the changes taken since.
   * fleet-source.test.ts reaches it only through setHeldRouteForTest.
   */
  readonly #held = new HeldRoutes();
  /** Endpoint key → why it has no route, kept as `held` is. */
  readonly #routeProblems = new Map<string, RecordProblem>();
  /** The last derivation's problems of other records than endpoints. */
  #otherProblems: readonly RecordProblem[] = [];
  /** onChange was called since the last take or derive. */
  #told = false;
  /** Endpoint key → its VPC: the routes to evaluate at the next take. */
  readonly #marked = new Map<string, string>();
  /** The last derivation's lanes: local addresses and refused node records. */
  #lanes: RouteLanes = OPEN_LANES;

  readonly #options: FleetSourceOptions;

  constructor(
    store: KeyValueStore,
    readonly schema: KeySchema,
    readonly nodeName: string,
    options: FleetSourceOptions,
  ) {
    this.#options = options;
    this.#records = new DatastoreView(store, schema, nodeName, {
      onChange: (changes) => this.#follow(changes),
      ...(options.onRejected && { onRejected: options.onRejected }),
      ...(options.backoff && { backoff: options.backoff }),
      ...(options.timers && { timers: options.timers }),
    });
  }

  start(): void {
    this.#records.start();
  }

  stop(): void {
    this.#records.stop();
  }

  /** The records as the view holds them now (read only: status and tests). */
  get view(): NodeView {
    return this.#records;
  }

  /** The ranges watched now. */
  get scope(): string[] {
    return this.#records.scope;
  }

  /** The mod revision of the value the view holds for a key (status and tests). */
  revisionOf(key: string): number | undefined {
    return this.#records.revisionOf(key);
  }

  health(): ViewHealth {
    return this.#records.health();
  }

  whenSynced(): Promise<void> {
    return this.#records.whenSynced();
  }

  /** Values rejected since start: the metric. */
  get rejectedTotal(): number {
    return this.#records.rejectedTotal;
  }

  /** Key → why its current value is rejected (its last good value is what applies). */
  get rejected(): ReadonlyMap<string, string> {
    return this.#records.rejected;
  }

  /** The problems of the config as the agent holds it: the last derive's, updated by the takes since. */
  get problems(): RecordProblem[] {
    return [...this.#otherProblems, ...this.#routeProblems.values()];
  }

  /** The full derivation (deriveAgentConfig). Resets what was pending: it is all in it. */
  derive(): Derivation {
    const d = deriveAgentConfig(this.schema, this.nodeName, this.#records);
    this.#structural = false;
    this.#told = false;
    this.#marked.clear();
    this.#routeProblems.clear();
    this.#live = new Set(d.config?.vpcs.map((v) => v.name));
    this.#lanes = d.lanes;
    this.#lastConfigSources = d.sources;
    this.#held.reset(d.routes);
    const others: RecordProblem[] = [];
    for (const p of d.problems) {
      const k = this.schema.parse(p.key);
      if (!('error' in k) && k.kind === 'endpoint') this.#routeProblems.set(p.key, p);
      else others.push(p);
    }
    this.#otherProblems = others;
    return d;
  }

  /** What changed since the last derive() or takeChanges(). */
  takeChanges(): FleetChanges {
    this.#told = false;
    if (this.#structural) return { structural: true, routes: [] };
    const self = this.#records.nodes.get(this.nodeName);
    const routes: RemoteRouteChange[] = [];
    for (const [key, vpcName] of this.#marked) {
      const vpc = this.#records.vpcs.get(vpcName);
      const ep = this.#records.endpoints.get(vpcName)?.get(key);
      let sid: string | undefined;
      // Without its own record or the VPC's, the change would have been structural.
      if (ep && vpc && self) {
        this.routeEvaluations++;
        const route = remoteRouteOf(this.schema, self, this.#records.nodes, vpc, key, ep, this.#lanes);
        if (route.problem) this.#routeProblems.set(key, route.problem);
        else this.#routeProblems.delete(key);
        sid = route.sid;
      } else this.#routeProblems.delete(key);
      const before = this.#held.get(key, vpcName);
      if (before === sid) continue;
      const prefix = ep?.prefix ?? endpointPrefix(this.schema, key);
      this.#held.set(key, vpcName, sid);
      routes.push({ vpc: vpcName, prefix, sid });
    }
    this.#marked.clear();
    return { structural: false, routes };
  }

  /**
   * The drift check of the routes the agent holds against the records: every endpoint of a live
   * VPC asked the route rule again, and every held route looked up, a slice at a time so route
   * changes keep flowing meanwhile. A difference is a change the incremental path missed (etcd's
   * watch loses nothing, so a bug here): it is marked, the owner is told, and its next take
   * hands it over as a route change. A structural change meanwhile ends the audit: the full
   * derivation it leads to replaces what is held. Returns the keys marked.
   */
  async audit(yieldNow: () => Promise<void> = nextTurn, slice = 2048): Promise<string[]> {
    const found: string[] = [];
    let steps = 0;
    for (const vpcName of [...this.#live]) {
      let self = this.#records.nodes.get(this.nodeName);
      let vpc = this.#records.vpcs.get(vpcName);
      const endpoints = this.#records.endpoints.get(vpcName);
      if (endpoints === undefined) continue;
      // Keys, then a lookup: iterating entries made a [key, value] pair per endpoint, 100k of
      // them per check on a busy node, all garbage.
      for (const key of endpoints.keys()) {
        if (++steps % slice === 0) {
          await yieldNow();
          if (this.#structural) return found;
          // Records are replaced, not changed, and may have been meanwhile.
          self = this.#records.nodes.get(this.nodeName);
          vpc = this.#records.vpcs.get(vpcName);
        }
        const ep = endpoints.get(key);
        if (!self || !vpc || !ep || this.#marked.has(key) || !this.#live.has(vpcName)) continue;
        const route = remoteRouteOf(this.schema, self, this.#records.nodes, vpc, key, ep, this.#lanes);
        if (this.#held.get(key, vpcName) !== route.sid) found.push(this.#markFound(key, vpcName));
      }
    }
    // The held routes themselves, not a copy of their 100k keys: their iterator survives changes
    // between slices (a key set meanwhile may or may not be visited; it was just taken, so it agrees).
    for (const key of this.#held.keys()) {
      if (++steps % slice === 0) {
        await yieldNow();
        if (this.#structural) return found;
      }
      const vpcName = this.schema.endpointVpcOf(key);
      if (vpcName === undefined || this.#marked.has(key) || this.#held.get(key, vpcName) === undefined)
        continue;
      if (this.#records.endpoints.get(vpcName)?.has(key)) continue;
      found.push(this.#markFound(key, vpcName));
    }
    if (found.length > 0 && !this.#told) {
      this.#told = true;
      this.#options.onChange();
    }
    return found;
  }

  /**
   * Test seam for the audit's test: leaves the route held for an endpoint key as a missed change
   * would (a wrong SID, or none: undefined) without telling anyone. Nothing else calls it.
   */
  setHeldRouteForTest(key: string, vpc: string, sid: string | undefined): void {
    this.#held.set(key, vpc, sid);
  }

  #markFound(key: string, vpc: string): string {
    this.#mark(key, vpc);
    return key;
  }

  /** One batch of the view: index it, mark what it touched, and say so if anything is pending. */
  #follow(changes: readonly ViewChange[]): void {
    const ownKey = this.schema.node(this.nodeName);
    let nodesChanged = false;
    /** Other nodes whose locator changed, or that came or went: their endpoints' routes change. */
    let moved: Set<string> | undefined;
    for (const c of changes) {
      switch (c.kind) {
        case 'endpoint': {
          if (c.oldNode !== c.newNode) this.#mark(c.key, c.vpc);
          break;
        }
        case 'node': {
          if (c.key === ownKey) this.#structural = true;
          else nodesChanged = true;
          if (c.key !== ownKey && !sameLocator(c.old, c.new))
            (moved ??= new Set()).add((c.new ?? c.old).name);
          break;
        }
        case 'vpc':
        case 'port':
          this.#structural = true;
          break;
      }
    }
    // The endpoints those nodes host now (one that left them in this batch was marked above).
    if (moved !== undefined && !this.#structural)
      for (const vpc of this.#live) {
        const table = this.#records.endpoints.get(vpc);
        if (table) for (const key of table.keysOn(moved)) this.#mark(key, vpc);
      }
    // Once per batch: a fleet's node records may all change in one.
    if (nodesChanged && !this.#structural && (this.#refusalsChanged() || this.#sourcesChanged()))
      this.#structural = true;
    if (!this.#told && (this.#structural || this.#marked.size > 0)) {
      this.#told = true;
      this.#options.onChange();
    }
  }

  /**
   * Whether the node records refused for overlapping prefixes differ from the last derivation's:
   * a refusal is a problem of a node key and withdraws every route to that node, which the full
   * derivation reports and does. Node records change rarely; the check is one sort of them.
   */
  #refusalsChanged(): boolean {
    const now = refusedNodes(this.schema, this.#records.nodes, this.nodeName);
    return !sameRefusals(now, this.#lanes.refusedNodes);
  }

  /**
   * Whether the fleet's SRv6 sources differ from the last derivation's: they are this node's
   * ingress filter, which a full pass applies. They change only when a node brings a new underlay
   * prefix or takes the last one of a prefix away.
   */
  #sourcesChanged(): boolean {
    const config = this.#lastConfigSources;
    if (config === undefined) return false;
    const now = fleetSources(this.#records.nodes);
    return now.length !== config.length || now.some((s, i) => s !== config[i]);
  }

  #mark(key: string, vpc: string): void {
    if (!this.#structural && this.#live.has(vpc)) this.#marked.set(key, vpc);
  }
}

/** A deleted endpoint's prefix, from its key (the view no longer has the record). */
function endpointPrefix(schema: KeySchema, key: string): Ip4Prefix {
  const k = schema.parse(key);
  if ('error' in k || k.kind !== 'endpoint') throw new Error(`${key} is not an endpoint key`);
  return k.prefix;
}

function sameLocator(a: NodeRecord | undefined, b: NodeRecord | undefined): boolean {
  return (
    a !== undefined &&
    b !== undefined &&
    a.locator.address === b.locator.address &&
    a.locator.len === b.locator.len
  );
}
