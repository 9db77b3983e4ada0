/**
 * The address book on disk (<stateDir>/service-addresses.json), so a VM keeps its service address
 * across agent restarts and released addresses stay held back across them too.
 */
import { join } from 'node:path';
import type { AddressAssignment, AddressBook } from '../services/address-allocator.js';
import type { AddressBookStore } from '../services/address-store.js';
import { readJsonFile, writeJsonAtomic } from './json-file.js';

export const SERVICE_ADDRESSES_FILE = 'service-addresses.json';

interface AddressBookFile {
  readonly version: 1;
  readonly assigned: readonly ({ readonly port: string } & AddressAssignment)[];
  readonly held: readonly { readonly address: string; readonly releasedAt: string }[];
}

export class AddressBookFileStore implements AddressBookStore {
  readonly path: string;

  constructor(stateDir: string) {
    this.path = join(stateDir, SERVICE_ADDRESSES_FILE);
  }

  /** undefined when there is no file yet. Throws on a file that is not an address book. */
  async load(): Promise<AddressBook | undefined> {
    const raw = await readJsonFile(this.path);
    if (raw === undefined) return undefined;
    return parseBook(raw, this.path);
  }

  async save(book: AddressBook): Promise<void> {
    const file: AddressBookFile = {
      version: 1,
      assigned: [...book.assigned].sort(([a], [b]) => (a < b ? -1 : 1)).map(([port, a]) => ({ port, ...a })),
      held: [...book.held].map(([address, t]) => ({ address, releasedAt: new Date(t).toISOString() })),
    };
    await writeJsonAtomic(this.path, file);
  }
}

function parseBook(raw: unknown, path: string): AddressBook {
  const bad = (why: string): Error => new Error(`${path}: not a service address book (${why})`);
  if (typeof raw !== 'object' || raw === null) throw bad('not an object');
  const f = raw as Partial<Record<keyof AddressBookFile, unknown>>;
  if (f.version !== 1) throw bad(`version ${String(f.version)}`);
  if (!Array.isArray(f.assigned) || !Array.isArray(f.held)) throw bad('assigned/held missing');
  const assigned = new Map<string, AddressAssignment>();
  for (const item of f.assigned as unknown[]) {
    const a = item as Record<string, unknown>;
    if (
      typeof a.port !== 'string' ||
      typeof a.address !== 'string' ||
      typeof a.vpc !== 'string' ||
      typeof a.ip !== 'string'
    ) {
      throw bad('bad assignment');
    }
    assigned.set(a.port, { address: a.address, vpc: a.vpc, ip: a.ip });
  }
  const held = new Map<string, number>();
  for (const item of f.held as unknown[]) {
    const h = item as Record<string, unknown>;
    const t = typeof h.releasedAt === 'string' ? Date.parse(h.releasedAt) : NaN;
    if (typeof h.address !== 'string' || Number.isNaN(t)) throw bad('bad held entry');
    held.set(h.address, t);
  }
  return { assigned, held };
}
