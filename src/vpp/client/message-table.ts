/**
 * The message table a VPP process hands out at connect: `name_crc` → id. Ids belong to one VPP
 * process (version, plugins, load order), so a table is built anew on every connect and never
 * outlives its connection.
 */
import { nameCrc, type MessageDef } from '../codec/schema.js';

export interface IncompatibleMessage {
  readonly name: string;
  /** The CRC this build of vppnet was generated with. */
  readonly expectedCrc: string;
  /** CRCs the running VPP offers under the same name (empty: the message is absent). */
  readonly offeredCrcs: readonly string[];
}

export interface CompatibilityReport {
  readonly compatible: readonly string[];
  readonly incompatible: readonly IncompatibleMessage[];
}

export class MessageTable {
  readonly #idByNameCrc: ReadonlyMap<string, number>;
  readonly #crcsByName = new Map<string, string[]>();
  /** Filled as definitions are resolved; the reverse direction the client routes frames by. */
  readonly #defById = new Map<number, MessageDef>();
  /** idOf() runs per request: no name_crc string building on the hot path. */
  readonly #idByDef = new Map<MessageDef, number | undefined>();

  constructor(entries: Iterable<{ readonly index: number; readonly name: string }>) {
    const idByNameCrc = new Map<string, number>();
    for (const e of entries) {
      idByNameCrc.set(e.name, e.index);
      const cut = e.name.lastIndexOf('_');
      if (cut > 0) {
        const name = e.name.slice(0, cut);
        const list = this.#crcsByName.get(name) ?? [];
        list.push(e.name.slice(cut + 1));
        this.#crcsByName.set(name, list);
      }
    }
    this.#idByNameCrc = idByNameCrc;
  }

  get size(): number {
    return this.#idByNameCrc.size;
  }

  /** The id of a definition in this VPP, or undefined when absent or changed. */
  idOf(def: MessageDef): number | undefined {
    if (this.#idByDef.has(def)) return this.#idByDef.get(def);
    const id = this.#idByNameCrc.get(nameCrc(def));
    this.#idByDef.set(def, id);
    return id;
  }

  has(def: MessageDef): boolean {
    return this.#idByNameCrc.has(nameCrc(def));
  }

  /** Registers definitions so incoming frames can be routed; returns the report for them. */
  resolve(defs: Iterable<MessageDef>): CompatibilityReport {
    const compatible: string[] = [];
    const incompatible: IncompatibleMessage[] = [];
    for (const def of defs) {
      const id = this.idOf(def);
      if (id === undefined) {
        incompatible.push({
          name: def.name,
          expectedCrc: def.crc,
          offeredCrcs: this.#crcsByName.get(def.name) ?? [],
        });
      } else {
        compatible.push(def.name);
        this.#defById.set(id, def);
      }
    }
    return { compatible, incompatible };
  }

  definitionOf(id: number): MessageDef | undefined {
    return this.#defById.get(id);
  }
}

/** One line per incompatible message, e.g. "sr_policy_add: want crc 44ac92e8, VPP has none". */
export function describeIncompatible(list: readonly IncompatibleMessage[]): string {
  return list
    .map((m) =>
      m.offeredCrcs.length
        ? `${m.name}: want crc ${m.expectedCrc}, VPP has ${m.offeredCrcs.join(', ')} (layout changed)`
        : `${m.name}: want crc ${m.expectedCrc}, VPP has none (absent: plugin not loaded or message removed)`,
    )
    .join('; ');
}
