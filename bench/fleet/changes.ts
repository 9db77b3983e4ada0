/**
 * The endpoint changes bench/fleet writes, and the steering every agent must hold after them.
 *
 * Changes go to hv0's VPCs (every one reaches hv0 and the other agents in that VPC: the most
 * work per change), cycling over them. Of every ten: eight VMs migrate to another non-agent node
 * (each agent re-points one steering entry; now and then to a node the VPC had no endpoint on,
 * which takes a new policy first), one VM goes (its entry deleted) and one comes (a new entry).
 * Each change names an endpoint no earlier change named, so each steering reply an agent's VPP
 * sends afterwards for that prefix answers exactly one change.
 */
import type { KeySchema } from '../../src/datastore/keys.js';
import type { WriteOp } from '../../src/datastore/store.js';
import { MAX_ENDPOINTS_PER_VPC, type FleetLayout } from './layout.js';
import { steeringKey } from '../../test/support/steering.js';

export type ChangeKind = 'move' | 'add' | 'delete';

export interface EndpointChange {
  readonly kind: ChangeKind;
  readonly vpc: number;
  readonly endpoint: number;
  /** The node hosting the endpoint after the change; undefined once deleted. */
  readonly host: number | undefined;
  /** The steering key it changes on each affected agent (steeringKey). */
  readonly steering: string;
  /** The agents whose VPP must answer a steering request for it. */
  readonly agents: readonly number[];
  readonly op: WriteOp;
}

/** How an agent's steering entry is named here, by SteeringMirror and by dumpSteering. */
export { steeringKey };

/** The benchmark's endpoint changes (moves, deletes, adds) and what each agent must then hold. */
export class EndpointChangeGenerator {
  /** VPC → endpoint → host after the changes so far (undefined: deleted). */
  readonly #hosts = new Map<number, Map<number, number | undefined>>();
  /** VPC → the next endpoint index to move or delete / to add. */
  readonly #nextExisting = new Map<number, number>();
  readonly #nextAdded = new Map<number, number>();
  #count = 0;

  constructor(
    private readonly layout: FleetLayout,
    private readonly schema: KeySchema,
  ) {}

  get count(): number {
    return this.#count;
  }

  /** The node endpoint k of VPC j is on now (undefined: none). */
  hostOf(j: number, k: number): number | undefined {
    const changed = this.#hosts.get(j);
    if (changed?.has(k)) return changed.get(k);
    return k < this.layout.endpointCount(j) ? this.layout.initialHost(j, k) : undefined;
  }

  /** The next change (and records it as made: the caller writes it). */
  next(): EndpointChange {
    const i = this.#count++;
    const j = i % this.layout.size.hv0Vpcs;
    const kind: ChangeKind = i % 10 === 8 ? 'delete' : i % 10 === 9 ? 'add' : 'move';
    let k: number;
    let host: number | undefined;
    if (kind === 'add') {
      k = this.#nextAdded.get(j) ?? this.layout.endpointCount(j);
      if (k >= MAX_ENDPOINTS_PER_VPC) throw new Error(`VPC ${j} has no free address left for change ${i}`);
      this.#nextAdded.set(j, k + 1);
      host = this.layout.initialHost(j, k);
    } else {
      k = this.#nextExisting.get(j) ?? this.layout.members(j).length;
      if (k >= this.layout.endpointCount(j))
        throw new Error(
          `VPC ${j} has no unchanged endpoint left for change ${i}: fewer changes or more endpoints`,
        );
      this.#nextExisting.set(j, k + 1);
      host = kind === 'delete' ? undefined : this.layout.nextHost(this.hostOf(j, k) as number);
    }
    let changed = this.#hosts.get(j);
    if (!changed) this.#hosts.set(j, (changed = new Map<number, number | undefined>()));
    changed.set(k, host);
    const prefix = this.layout.endpointPrefix(k);
    const key = this.schema.endpoint(this.layout.vpcName(j), prefix);
    return {
      kind,
      vpc: j,
      endpoint: k,
      host,
      steering: steeringKey(this.layout.vpcTable(j), `${prefix.address}/${prefix.len}`),
      agents: this.layout.members(j),
      op:
        host === undefined
          ? { type: 'delete', key }
          : { type: 'put', key, value: this.layout.endpointValue(host) },
    };
  }

  /** What agent a's VPP must hold: steering key → the remote SID it steers to. */
  expected(a: number): Map<string, string> {
    const out = new Map<string, string>();
    for (const j of this.layout.agentVpcs(a)) {
      const end = this.#nextAdded.get(j) ?? this.layout.endpointCount(j);
      const table = this.layout.vpcTable(j);
      for (let k = 0; k < end; k++) {
        const host = this.hostOf(j, k);
        if (host === undefined || host === a) continue;
        const p = this.layout.endpointPrefix(k);
        out.set(steeringKey(table, `${p.address}/${p.len}`), this.layout.sid(host, j));
      }
    }
    return out;
  }
}
