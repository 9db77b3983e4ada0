/**
 * One VPC's endpoints as a node's view holds them: per endpoint its key, its node (an index into
 * names shared by the view's tables) and the mod revision of its value, in columns. A record is
 * built when asked for (get, iteration): its prefix is spelled in its key, which the view had
 * validated, and its VPC is the table's.
 *
 * Why not a Map of records: a 100k-endpoint node held per endpoint a record (64 bytes), its prefix
 * object and address text (~72), a map entry, and a second map entry for its revision
 * (bench/results/2026-12-07-fleet-memory.md). Here it is the key, one map entry and 12 bytes.
 * Records built on demand are short-lived: the derivation keeps only their prefixes, in its routes.
 */
import type { EndpointPrefix } from './keys.js';
import type { EndpointRecord } from './records.js';

/** Node names by index, shared by a view's tables: a fleet has far fewer nodes than endpoints. */
export class NodeNames {
  readonly #names: string[] = [];
  readonly #ids = new Map<string, number>();

  idOf(name: string): number {
    let id = this.#ids.get(name);
    if (id === undefined) {
      id = this.#names.length;
      this.#names.push(name);
      this.#ids.set(name, id);
    }
    return id;
  }

  /** The id of a name already seen, or undefined (then no endpoint is on that node). */
  knownId(name: string): number | undefined {
    return this.#ids.get(name);
  }

  name(id: number): string {
    return this.#names[id] as string;
  }
}

const INITIAL_SLOTS = 16;

export class EndpointTable implements ReadonlyMap<string, EndpointRecord> {
  readonly vpc: string;
  /** Length of the keys' common start (`PREFIX/endpoints/VPC/`): the prefix follows it. */
  readonly #keyStart: number;
  readonly #names: NodeNames;
  /** Key → slot of its columns. Iteration is the Map's: it survives changes between steps. */
  readonly #slots = new Map<string, number>();
  #node = new Uint32Array(INITIAL_SLOTS);
  #revision = new Float64Array(INITIAL_SLOTS);
  /** Slots freed by deletes, reused first. */
  readonly #free: number[] = [];
  #used = 0;

  /** `keyStart`: the endpoints range's key (KeySchema.endpointsRange), which every key starts with. */
  constructor(vpc: string, keyStart: string, names: NodeNames) {
    this.vpc = vpc;
    this.#keyStart = keyStart.length;
    this.#names = names;
  }

  get size(): number {
    return this.#slots.size;
  }

  has(key: string): boolean {
    return this.#slots.has(key);
  }

  get(key: string): EndpointRecord | undefined {
    const slot = this.#slots.get(key);
    return slot === undefined ? undefined : this.#record(key, slot);
  }

  /** The node hosting an endpoint, without building its record. */
  nodeOf(key: string): string | undefined {
    const slot = this.#slots.get(key);
    return slot === undefined ? undefined : this.#names.name(this.#node[slot] as number);
  }

  /** The mod revision of the endpoint's value. */
  revisionOf(key: string): number | undefined {
    const slot = this.#slots.get(key);
    return slot === undefined ? undefined : this.#revision[slot];
  }

  /** Keys of the endpoints hosted by one of these nodes. */
  *keysOn(nodes: ReadonlySet<string>): IterableIterator<string> {
    const ids = new Set<number>();
    for (const n of nodes) {
      const id = this.#names.knownId(n);
      if (id !== undefined) ids.add(id);
    }
    if (ids.size === 0) return;
    for (const [key, slot] of this.#slots) if (ids.has(this.#node[slot] as number)) yield key;
  }

  /** Holds a record (of this table's VPC, under `key`) and the revision of its value. */
  set(key: string, record: EndpointRecord, revision: number): void {
    this.#hold(key, this.#slots.get(key), record, revision);
  }

  /** set, returning the node of the record it replaced (undefined: the key was new), with one lookup. */
  replace(key: string, record: EndpointRecord, revision: number): string | undefined {
    const slot = this.#slots.get(key);
    const old = slot === undefined ? undefined : this.#names.name(this.#node[slot] as number);
    this.#hold(key, slot, record, revision);
    return old;
  }

  /** Holds the record in the key's slot (undefined: a new one). */
  #hold(key: string, slot: number | undefined, record: EndpointRecord, revision: number): void {
    if (slot === undefined) {
      slot = this.#free.pop() ?? this.#grow();
      this.#slots.set(key, slot);
    }
    this.#node[slot] = this.#names.idOf(record.node);
    this.#revision[slot] = revision;
  }

  delete(key: string): boolean {
    const slot = this.#slots.get(key);
    if (slot === undefined) return false;
    this.#slots.delete(key);
    this.#free.push(slot);
    return true;
  }

  keys(): IterableIterator<string> {
    return this.#slots.keys();
  }

  *entries(): IterableIterator<[string, EndpointRecord]> {
    for (const [key, slot] of this.#slots) yield [key, this.#record(key, slot)];
  }

  *values(): IterableIterator<EndpointRecord> {
    for (const [key, slot] of this.#slots) yield this.#record(key, slot);
  }

  [Symbol.iterator](): IterableIterator<[string, EndpointRecord]> {
    return this.entries();
  }

  forEach(fn: (value: EndpointRecord, key: string, map: ReadonlyMap<string, EndpointRecord>) => void): void {
    for (const [key, slot] of this.#slots) fn(this.#record(key, slot), key, this);
  }

  #record(key: string, slot: number): EndpointRecord {
    // The key was validated when its value was accepted: `ADDRESS_LEN`, the address canonical.
    const written = key.slice(this.#keyStart);
    const cut = written.lastIndexOf('_');
    const prefix: EndpointPrefix = { address: written.slice(0, cut), len: Number(written.slice(cut + 1)) };
    return {
      kind: 'endpoint',
      vpc: this.vpc,
      prefix,
      family: prefix.address.includes(':') ? 6 : 4,
      node: this.#names.name(this.#node[slot] as number),
    };
  }

  #grow(): number {
    if (this.#used === this.#node.length) {
      const node = new Uint32Array(this.#node.length * 2);
      node.set(this.#node);
      this.#node = node;
      const revision = new Float64Array(this.#revision.length * 2);
      revision.set(this.#revision);
      this.#revision = revision;
    }
    return this.#used++;
  }
}
