/**
 * Attachments on disk, one file per attachment (<stateDir>/attachments/<id>.json), written
 * atomically: the file exists exactly while the attachment should. On restart the agent reads
 * them back into its desired state; a file that cannot be read is reported and left alone.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { AttachIp, AttachRoute } from '../agent-api/protocol.js';
import { readJsonFile, removeFileDurably, writeJsonAtomic } from './json-file.js';
import type { PodPortMode } from '../services/pod-port.js';

export const ATTACHMENTS_DIR = 'attachments';

export interface AttachmentRecord {
  readonly version: 1;
  /** The network config's name: GC only ever collects attachments of the network it names. */
  readonly network: string;
  readonly containerId: string;
  readonly ifname: string;
  readonly netns: string;
  readonly mode: PodPortMode;
  /** hostVethName(containerId, ifname): the host link in veth mode, the interface tag's suffix. */
  readonly id: string;
  readonly podMac: string;
  /** The host end of the veth pair (veth mode). */
  readonly hostMac?: string;
  readonly mtu?: number;
  readonly ips: readonly AttachIp[];
  readonly routes: readonly AttachRoute[];
  readonly createdAt: string;
}

export interface AttachmentStore {
  loadAll(): Promise<{ readonly records: AttachmentRecord[]; readonly problems: string[] }>;
  save(record: AttachmentRecord): Promise<void>;
  remove(id: string): Promise<void>;
}

export class AttachmentFileStore implements AttachmentStore {
  readonly dir: string;

  constructor(stateDir: string) {
    this.dir = join(stateDir, ATTACHMENTS_DIR);
  }

  async loadAll(): Promise<{ records: AttachmentRecord[]; problems: string[] }> {
    const names = await readdir(this.dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [] as string[];
      throw err;
    });
    const records: AttachmentRecord[] = [];
    const problems: string[] = [];
    for (const name of names.filter((n) => n.endsWith('.json') && !n.startsWith('.')).sort()) {
      const path = join(this.dir, name);
      try {
        const record = parseRecord(await readJsonFile(path));
        if (`${record.id}.json` !== name) throw new Error(`holds attachment ${record.id}`);
        records.push(record);
      } catch (err) {
        problems.push(`${path}: ${(err as Error).message}`);
      }
    }
    return { records, problems };
  }

  save(record: AttachmentRecord): Promise<void> {
    return writeJsonAtomic(this.#path(record.id), record);
  }

  remove(id: string): Promise<void> {
    return removeFileDurably(this.#path(id));
  }

  #path(id: string): string {
    if (!/^[A-Za-z0-9_-]+$/.test(id))
      throw new Error(`attachment id ${JSON.stringify(id)} is not a file name`);
    return join(this.dir, `${id}.json`);
  }
}

function parseRecord(raw: unknown): AttachmentRecord {
  if (typeof raw !== 'object' || raw === null) throw new Error('not an object');
  const r = raw as Record<string, unknown>;
  const str = (k: string): string => {
    const v = r[k];
    if (typeof v !== 'string') throw new Error(`${k} is not a string`);
    return v;
  };
  if (r.version !== 1) throw new Error(`unknown version ${String(r.version)}`);
  const mode = str('mode');
  if (mode !== 'tap' && mode !== 'veth') throw new Error(`unknown mode ${mode}`);
  if (!Array.isArray(r.ips) || !Array.isArray(r.routes)) throw new Error('ips/routes missing');
  const record: AttachmentRecord = {
    version: 1,
    network: str('network'),
    containerId: str('containerId'),
    ifname: str('ifname'),
    netns: str('netns'),
    mode,
    id: str('id'),
    podMac: str('podMac'),
    ...(typeof r.hostMac === 'string' && { hostMac: r.hostMac }),
    ...(typeof r.mtu === 'number' && { mtu: r.mtu }),
    ips: r.ips as AttachIp[],
    routes: r.routes as AttachRoute[],
    createdAt: str('createdAt'),
  };
  return record;
}
