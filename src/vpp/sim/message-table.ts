/**
 * The simulator's message table: which `name_crc` answers to which message id, as a VPP process
 * publishes it in `sockclnt_create_reply`.
 *
 * Ids belong to one VPP process; memclnt's are fixed (vlibmemory/memclnt.api registers first):
 * sockclnt_create 15/16, sockclnt_delete 17/18, memclnt_keepalive 21/22, control_ping 23/24,
 * get_api_json 27/28. Everything else may move between builds, plugin sets and restarts.
 */
import { nameCrc, type MessageDef } from '../codec/schema.js';
import { definitionByNameCrc, definitions } from '../messages/index.js';

export const FIXED_MESSAGE_IDS: ReadonlyMap<string, number> = new Map([
  ['sockclnt_create', 15],
  ['sockclnt_create_reply', 16],
  ['sockclnt_delete', 17],
  ['sockclnt_delete_reply', 18],
  ['memclnt_keepalive', 21],
  ['memclnt_keepalive_reply', 22],
  ['control_ping', 23],
  ['control_ping_reply', 24],
  ['get_api_json', 27],
  ['get_api_json_reply', 28],
]);

/** First id handed out to non-memclnt messages by default (memclnt occupies 1..28 in VPP). */
const FIRST_DYNAMIC_ID = 29;

export interface TableEntry {
  readonly id: number;
  /** `name_crc` as published (changeCrc may make it differ from the definition's). */
  nameCrc: string;
  /** The message's name without CRC. */
  readonly name: string;
  /** The generated definition the simulator decodes it with; undefined for messages it only lists. */
  readonly def: MessageDef | undefined;
}

/** `name_crc` → name: strip the trailing `_xxxxxxxx`. */
export function nameOf(key: string): string {
  return /_[0-9a-f]{8}$/.test(key) ? key.slice(0, -9) : key;
}

export class MessageTable {
  readonly #byId = new Map<number, TableEntry>();
  readonly #byName = new Map<string, TableEntry>();
  /** Publication order (a real VPP sends its hash order; a given table keeps its order). */
  #order: TableEntry[] = [];

  constructor(given?: ReadonlyMap<string, number>) {
    if (given) {
      for (const [key, id] of given) this.#add(id, key);
    } else {
      for (const [name, id] of FIXED_MESSAGE_IDS) {
        const def = definitions.find((d) => d.name === name);
        if (def) this.#add(id, nameCrc(def));
      }
      let next = FIRST_DYNAMIC_ID;
      for (const def of definitions) {
        if (FIXED_MESSAGE_IDS.has(def.name)) continue;
        while ([...FIXED_MESSAGE_IDS.values()].includes(next)) next++;
        this.#add(next++, nameCrc(def));
      }
    }
  }

  #add(id: number, key: string): void {
    const entry: TableEntry = { id, nameCrc: key, name: nameOf(key), def: definitionByNameCrc(key) };
    this.#byId.set(id, entry);
    this.#byName.set(entry.name, entry);
    this.#order.push(entry);
  }

  byId(id: number): TableEntry | undefined {
    return this.#byId.get(id);
  }

  /** The id this process uses for a message (replies, details, events), if it has one. */
  idOf(def: MessageDef): number | undefined {
    const e = this.#byName.get(def.name);
    return e?.def === def ? e.id : undefined;
  }

  get size(): number {
    return this.#order.length;
  }

  /** Entries in publication order. */
  entries(): readonly TableEntry[] {
    return this.#order;
  }

  /** As if the plugin providing `name` were not loaded: the id stops answering. */
  remove(name: string): boolean {
    const e = this.#byName.get(nameOf(name)) ?? this.#byName.get(name);
    if (!e) return false;
    this.#byName.delete(e.name);
    this.#byId.delete(e.id);
    this.#order = this.#order.filter((x) => x !== e);
    return true;
  }

  /** Publishes `name` under another CRC (a layout change); the id stays. */
  changeCrc(name: string, crc: string): boolean {
    const e = this.#byName.get(nameOf(name)) ?? this.#byName.get(name);
    if (!e) return false;
    e.nameCrc = `${e.name}_${crc.replace(/^0x/, '').toLowerCase()}`;
    return true;
  }

  /**
   * A new process with the same plugins but different ids: the non-memclnt ids are permuted
   * (deterministically from `seed`) among the same set of ids.
   */
  reshuffle(seed: number): void {
    const movable = this.#order.filter((e) => !FIXED_MESSAGE_IDS.has(e.name));
    const ids = movable.map((e) => e.id);
    // Fisher-Yates with a small LCG (vppinfra's random_u32) so runs are reproducible.
    let s = seed >>> 0;
    const rnd = (): number => {
      s = (Math.imul(1664525, s) + 1013904223) >>> 0;
      return s;
    };
    for (let i = ids.length - 1; i > 0; i--) {
      const j = rnd() % (i + 1);
      [ids[i], ids[j]] = [ids[j] as number, ids[i] as number];
    }
    // A permutation that leaves everything in place would not test anything: rotate then.
    if (ids.every((id, i) => id === movable[i]?.id) && ids.length > 1) ids.push(ids.shift() as number);
    const fixed = this.#order.filter((e) => FIXED_MESSAGE_IDS.has(e.name));
    this.#byId.clear();
    this.#byName.clear();
    const old = this.#order;
    this.#order = [];
    const newIdOf = new Map(movable.map((e, i) => [e, ids[i] as number]));
    for (const e of old) {
      const id = fixed.includes(e) ? e.id : (newIdOf.get(e) as number);
      const moved: TableEntry = { id, nameCrc: e.nameCrc, name: e.name, def: e.def };
      this.#byId.set(id, moved);
      this.#byName.set(moved.name, moved);
      this.#order.push(moved);
    }
  }

  /** name_crc → id, in publication order. */
  toMap(): Map<string, number> {
    return new Map(this.#order.map((e) => [e.nameCrc, e.id]));
  }
}
