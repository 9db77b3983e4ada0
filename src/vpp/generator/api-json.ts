/**
 * Reads VPP's .api.json files (as installed in /usr/share/vpp/api or kept in a source tree) into
 * one index of messages, types and services. Only the parts the generator needs are modelled.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/** A field as .api.json writes it: [type, name], [type, name, len], [type, name, 0, countField], maybe + options. */
export type ApiField = [string, string, ...unknown[]];

export interface ApiMessage {
  readonly name: string;
  readonly fields: readonly ApiField[];
  readonly crc: string;
  readonly options: Readonly<Record<string, unknown>>;
  readonly file: string;
}

export interface ApiService {
  readonly reply: string;
  readonly stream?: boolean;
  readonly stream_msg?: string;
  readonly events?: readonly string[];
}

export interface ApiIndex {
  readonly messages: Map<string, ApiMessage>;
  readonly structs: Map<string, readonly ApiField[]>;
  readonly unions: Map<string, readonly ApiField[]>;
  readonly enums: Map<
    string,
    { readonly kind: 'enum' | 'enumflag'; readonly width: string; readonly values: [string, number][] }
  >;
  readonly aliases: Map<string, { readonly type: string; readonly length?: number }>;
  readonly services: Map<string, ApiService>;
  readonly files: string[];
}

interface ApiFile {
  types?: unknown[][];
  messages?: unknown[][];
  unions?: unknown[][];
  enums?: unknown[][];
  enumflags?: unknown[][];
  aliases?: Record<string, { type: string; length?: number }>;
  services?: Record<string, ApiService>;
}

async function listApiFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listApiFiles(p)));
    else if (entry.name.endsWith('.api.json')) out.push(p);
  }
  return out.sort();
}

function splitOptions(entry: unknown[]): { items: unknown[]; options: Record<string, unknown> } {
  const last = entry[entry.length - 1];
  if (last !== null && typeof last === 'object' && !Array.isArray(last)) {
    return { items: entry.slice(0, -1), options: last as Record<string, unknown> };
  }
  return { items: entry, options: {} };
}

export async function loadApiIndex(dir: string): Promise<ApiIndex> {
  const index: ApiIndex = {
    messages: new Map(),
    structs: new Map(),
    unions: new Map(),
    enums: new Map(),
    aliases: new Map(),
    services: new Map(),
    files: [],
  };
  for (const file of await listApiFiles(dir)) {
    const rel = path.relative(dir, file);
    index.files.push(rel);
    const api = JSON.parse(await readFile(file, 'utf8')) as ApiFile;
    for (const m of api.messages ?? []) {
      const name = m[0] as string;
      const { items, options } = splitOptions(m.slice(1));
      const crc = (typeof options.crc === 'string' ? options.crc : '').replace(/^0x/, '');
      index.messages.set(name, {
        name,
        fields: items as ApiField[],
        crc,
        options: (options.options as Record<string, unknown> | undefined) ?? {},
        file: rel,
      });
    }
    for (const t of api.types ?? []) {
      const { items } = splitOptions(t.slice(1));
      index.structs.set(t[0] as string, items as ApiField[]);
    }
    for (const u of api.unions ?? []) {
      const { items } = splitOptions(u.slice(1));
      index.unions.set(u[0] as string, items as ApiField[]);
    }
    for (const [list, kind] of [
      [api.enums, 'enum'],
      [api.enumflags, 'enumflag'],
    ] as const) {
      for (const e of list ?? []) {
        const { items, options } = splitOptions(e.slice(1));
        index.enums.set(e[0] as string, {
          kind,
          width: (options.enumtype as string | undefined) ?? 'u32',
          values: items as [string, number][],
        });
      }
    }
    for (const [name, a] of Object.entries(api.aliases ?? {})) {
      index.aliases.set(name, a.length === undefined ? { type: a.type } : { type: a.type, length: a.length });
    }
    for (const [name, s] of Object.entries(api.services ?? {})) index.services.set(name, s);
  }
  return index;
}
