/**
 * The remote routes a FleetSource has handed to the agent, by endpoint key: the last derivation's
 * routes (the config's own array, held by the agent anyway) and the changes taken since, on top.
 *
 * Why not a Map of key → SID: a 100k-endpoint node held a map entry per route (~35 bytes) beside
 * the routes the config already holds (bench/results/2026-12-07-fleet-memory-2.md). Here a route
 * of the derivation is found by a binary search of its VPC's run of routes, which deriveAgentConfig
 * lists sorted by key; only the routes changed since cost a map entry. Those grow with the
 * endpoints changed between two derivations, at most one entry per key, as the map did.
 */
import type { EndpointRoute } from './endpoint-route.js';

/** A run of routes of one VPC in the derivation's list, sorted by key: [start, end). */
type Run = readonly [start: number, end: number];

export class HeldRoutes {
  #derived: readonly EndpointRoute[] = [];
  readonly #runs = new Map<string, Run>();
  /** VPC → key → the SID held since the derivation, or undefined: no route (whatever it said). */
  readonly #changed = new Map<string, Map<string, string | undefined>>();

  /** The routes of a derivation, replacing everything held: of each VPC, one run sorted by key. */
  reset(routes: readonly EndpointRoute[]): void {
    this.#changed.clear();
    this.#runs.clear();
    this.#derived = routes;
    let start = 0;
    for (let i = 1; i <= routes.length; i++) {
      const run = routes[start] as EndpointRoute;
      const next = routes[i];
      if (next !== undefined && next.vpc === run.vpc) {
        // The search below needs it; deriveAgentConfig sorts each VPC's keys.
        if (!((routes[i - 1] as EndpointRoute).key < next.key))
          throw new Error(`held routes: ${next.key} is not after the route before it in its VPC`);
        continue;
      }
      if (this.#runs.has(run.vpc)) throw new Error(`held routes: VPC ${run.vpc}'s routes are not in one run`);
      this.#runs.set(run.vpc, [start, i]);
      start = i;
    }
  }

  /** The SID of the route held for an endpoint key of `vpc`, if one is. */
  get(key: string, vpc: string): string | undefined {
    const changed = this.#changed.get(vpc);
    if (changed?.has(key)) return changed.get(key);
    return this.#derivedSid(key, vpc);
  }

  /** The route now held for the key: to `sid`, or none (undefined). */
  set(key: string, vpc: string, sid: string | undefined): void {
    let changed = this.#changed.get(vpc);
    if (sid === undefined && this.#derivedSid(key, vpc) === undefined) changed?.delete(key);
    else {
      if (changed === undefined) this.#changed.set(vpc, (changed = new Map<string, string | undefined>()));
      changed.set(key, sid);
    }
  }

  /**
   * Every held route's key. Changes between two steps may or may not be seen, as for a Map's
   * iterator: the derivation's list is not changed (a reset replaces it), and the changes are
   * Maps. Keys only: a pair per route would be 100k garbage arrays per drift check.
   */
  *keys(): IterableIterator<string> {
    const derived = this.#derived;
    for (let i = 0; i < derived.length; i++) {
      const { key, vpc } = derived[i] as EndpointRoute;
      const changed = this.#changed.get(vpc);
      if (!changed?.has(key) || changed.get(key) !== undefined) yield key;
    }
    for (const [vpc, changed] of this.#changed)
      for (const [key, sid] of changed)
        if (sid !== undefined && this.#derivedSid(key, vpc) === undefined) yield key;
  }

  #derivedSid(key: string, vpc: string): string | undefined {
    const run = this.#runs.get(vpc);
    if (run === undefined) return undefined;
    const routes = this.#derived;
    let [low, high] = run;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const r = routes[mid] as EndpointRoute;
      if (r.key === key) return r.sid;
      if (r.key < key) low = mid + 1;
      else high = mid;
    }
    return undefined;
  }
}
