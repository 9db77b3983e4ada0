/**
 * The SRv6 globals (encap source, hop limit) vppnet set, remembered in a JSON file per VPP process
 * id. VPP cannot report them back, so without this file an agent restarted against the same VPP
 * would set them again; with it, such a restart sends no operations at all. The same goes for
 * the underlay's neighbour advertisement (srv6/underlay-neighbours.ts): sent once per VPP process
 * and MAC, it leaves nothing in VPP to read back.
 *
 * The file is an optimisation, never a source of truth: a missing or corrupt file is treated as
 * empty (the globals are set once more, which is harmless), and a failed write is logged while the
 * value stays remembered in memory, so the dataplane never waits on the state directory.
 */
import { readFile } from 'node:fs/promises';
import type { SrGlobalsMemory } from '../srv6/actual.js';
import type { UnderlayAnnouncementMemory } from '../srv6/underlay-neighbours.js';
import { removeStaleTempFiles, writeFileAtomic } from '../util/atomic-file.js';
import { errorMessage, silentLogger, type AgentLogger } from './logger.js';
import type { SrGlobalsStore } from '../hypervisor/reconcile.js';

export const SR_GLOBALS_FILE = 'sr-globals.json';

const FORMAT_VERSION = 1;

export class SrGlobalsFileStore implements SrGlobalsStore {
  readonly #path: string;
  readonly #logger: AgentLogger;
  #memory: SrGlobalsMemory | undefined;
  #loaded = false;
  /** The file's content as last read or written, to skip rewriting an unchanged value. */
  #persisted: string | undefined;
  /** For the CLI: read what the agent remembers, never write or tidy up its directory. */
  readonly #readOnly: boolean;
  /** Why the last load found nothing usable, for the CLI to say what its verdict rests on. */
  #loadProblem: string | undefined;

  constructor(path: string, logger: AgentLogger = silentLogger, opts: { readonly readOnly?: boolean } = {}) {
    this.#path = path;
    this.#logger = logger;
    this.#readOnly = opts.readOnly ?? false;
  }

  get path(): string {
    return this.#path;
  }

  /** After load(): why the file gave nothing ("… does not exist", "… is corrupt"), if it did not. */
  get loadProblem(): string | undefined {
    return this.#loadProblem;
  }

  async load(): Promise<SrGlobalsMemory | undefined> {
    if (!this.#loaded) {
      this.#loaded = true;
      if (!this.#readOnly) await removeStaleTempFiles(this.#path);
      this.#memory = await this.#readFile();
    }
    return this.#memory;
  }

  async save(memory: SrGlobalsMemory): Promise<void> {
    if (this.#readOnly) return;
    this.#loaded = true;
    this.#memory = memory;
    const text = serialize(memory);
    if (text === this.#persisted) return;
    try {
      await writeFileAtomic(this.#path, text);
      this.#persisted = text;
    } catch (err) {
      this.#logger.error(
        { path: this.#path, err: errorMessage(err) },
        'cannot persist the SRv6 globals; an agent restart will set them again',
      );
    }
  }

  async #readFile(): Promise<SrGlobalsMemory | undefined> {
    let text: string;
    try {
      text = await readFile(this.#path, 'utf8');
    } catch (err) {
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      this.#loadProblem = missing
        ? `${this.#path} does not exist`
        : `cannot read ${this.#path}: ${errorMessage(err)}`;
      if (!missing) {
        this.#logger.warn(
          { path: this.#path, err: errorMessage(err) },
          'cannot read the SRv6 globals file; treating it as empty',
        );
      }
      return undefined;
    }
    const memory = parse(text);
    if (memory === undefined) {
      this.#loadProblem = `${this.#path} is corrupt`;
      this.#logger.warn({ path: this.#path }, 'the SRv6 globals file is corrupt; treating it as empty');
      return undefined;
    }
    this.#persisted = text;
    return memory;
  }
}

function serialize(memory: SrGlobalsMemory): string {
  return `${JSON.stringify({ version: FORMAT_VERSION, ...memory })}\n`;
}

function parse(text: string): SrGlobalsMemory | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { version, vppPid, encapSource, hopLimit, underlayAnnouncement, aclUdpIdleSeconds } = raw as Record<
    string,
    unknown
  >;
  if (version !== FORMAT_VERSION || !Number.isSafeInteger(vppPid)) return undefined;
  if (encapSource !== undefined && typeof encapSource !== 'string') return undefined;
  if (hopLimit !== undefined && !Number.isSafeInteger(hopLimit)) return undefined;
  if (aclUdpIdleSeconds !== undefined && !Number.isSafeInteger(aclUdpIdleSeconds)) return undefined;
  const announcement =
    underlayAnnouncement === undefined ? undefined : parseAnnouncement(underlayAnnouncement);
  if (announcement === null) return undefined;
  return {
    vppPid: vppPid as number,
    ...(encapSource === undefined ? {} : { encapSource }),
    ...(hopLimit === undefined ? {} : { hopLimit: hopLimit as number }),
    ...(announcement === undefined ? {} : { underlayAnnouncement: announcement }),
    ...(aclUdpIdleSeconds === undefined ? {} : { aclUdpIdleSeconds: aclUdpIdleSeconds as number }),
  };
}

/** The remembered underlay advertisement; null when malformed. */
function parseAnnouncement(raw: unknown): UnderlayAnnouncementMemory | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const { iface, address, mac } = raw as Record<string, unknown>;
  if (typeof iface !== 'string' || typeof address !== 'string' || typeof mac !== 'string') return null;
  return { iface, address, mac };
}
