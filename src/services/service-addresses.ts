/**
 * The agent's keeper of per-VM service addresses: runs the allocator over the persisted book on
 * every reconcile (with what VPP holds as a fallback), saves the book before VPP is programmed with
 * it, and remembers the outcome for the service map.
 */
import type { ServiceMapEntry } from '../agent-api/service-map.js';
import type { AgentConfig } from '../config/model.js';
import {
  allocateServiceAddresses,
  EMPTY_BOOK,
  serviceAddressRequests,
  type AddressBook,
  type RecoveredAssignment,
} from './address-allocator.js';
import type { AddressBookStore } from './address-store.js';
import { serviceMap } from './service-map.js';

export interface AssignOptions {
  /** false for a dry run: compute, but neither save nor remember. */
  readonly commit?: boolean;
}

export interface AssignOutcome {
  /** Port name → service address. */
  readonly addresses: ReadonlyMap<string, string>;
  /** Why some ports have no address, or the book could not be read; the rest still works. */
  readonly problems: readonly string[];
}

export class ServiceAddresses {
  readonly #store: AddressBookStore;
  readonly #clock: () => number;
  #book: AddressBook | undefined;
  #bookProblem: string | undefined;
  #current: { config: AgentConfig; addresses: ReadonlyMap<string, string> } | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #circuitIds: ReadonlyMap<string, number> = new Map();

  constructor(store: AddressBookStore, clock: () => number = Date.now) {
    this.#store = store;
    this.#clock = clock;
  }

  /** Addresses for every VM port of `config`. One at a time: each builds on the last saved book. */
  assign(
    config: AgentConfig,
    recovered: readonly RecoveredAssignment[],
    opts: AssignOptions = {},
  ): Promise<AssignOutcome> {
    const run = this.#queue.then(() => this.#assign(config, recovered, opts.commit ?? true));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #assign(
    config: AgentConfig,
    recovered: readonly RecoveredAssignment[],
    commit: boolean,
  ): Promise<AssignOutcome> {
    const services = config.services;
    if (!services) return { addresses: new Map(), problems: [] };
    const book = await this.#loadBook();
    const result = allocateServiceAddresses({
      book,
      requests: serviceAddressRequests(config),
      range: services.vmAddressRange,
      holdMs: services.addressHoldSeconds * 1000,
      now: this.#clock(),
      recovered,
    });
    const problems = [
      ...(this.#bookProblem ? [this.#bookProblem] : []),
      ...result.exhausted.map((e) => e.message),
    ];
    if (commit) {
      // Saved before VPP gets the mappings: an address VPP holds is always one the book knows.
      if (result.changed) await this.#store.save(result.book);
      this.#book = result.book;
      this.#bookProblem = undefined;
      this.#current = { config, addresses: result.addresses };
    }
    return { addresses: result.addresses, problems };
  }

  async #loadBook(): Promise<AddressBook> {
    if (this.#book) return this.#book;
    try {
      this.#book = (await this.#store.load()) ?? EMPTY_BOOK;
    } catch (err) {
      // Start over from what VPP holds rather than leave every VM without metadata.
      this.#bookProblem = `service address book unreadable, rebuilt from VPP: ${(err as Error).message}`;
      this.#book = EMPTY_BOOK;
    }
    return this.#book;
  }

  /**
   * VPP's index of each VM port (port name → sw_if_index), as the last full pass left VPP: the
   * circuit-id VPP's DHCP relay writes into option 82 for that VM.
   */
  setCircuitIds(ids: ReadonlyMap<string, number>): void {
    this.#circuitIds = ids;
  }

  /** The map of the last committed assignment (empty before the first reconcile). */
  serviceMap(): ServiceMapEntry[] {
    return this.#current ? serviceMap(this.#current.config, this.#current.addresses, this.#circuitIds) : [];
  }
}
