/**
 * The stores the datastore's tests run against: a real etcd (Debian's etcd-server, started by
 * the test on a loopback port) where one is installed, and the in-memory store (memory-store.ts)
 * always. A suite that needs one store takes TEST_BACKEND: etcd when present, else memory, or what
 * VPPNET_TEST_STORE (etcd | memory) names.
 */
import { existsSync } from 'node:fs';
import { EtcdStore } from '../etcd-store.js';
import { MemoryKeyspace, MemoryStore } from '../memory-store.js';
import type { StoreBackoff } from '../retry-schedule.js';
import type { KeyValueStore } from '../store.js';
import type { Timers } from '../../util/timers.js';
import { ETCD_BINARY, EtcdServer } from './etcd-server.js';

export interface TestClientOptions {
  readonly backoff?: StoreBackoff;
  /** etcd's deadline per unary call (the memory store answers at once). */
  readonly callTimeoutMs?: number;
  readonly timers?: Timers;
}

/** A running store for a suite; each client is one agent's or writer's connection to it. */
export interface StoreBackend {
  readonly name: BackendName;
  /** Where the clients connect, for descriptions and messages. */
  readonly description: string;
  /** A new client; the caller closes it. */
  client(options?: TestClientOptions): KeyValueStore;
  /** Drops the history before `revision`: watches from before it end with ErrCompacted. */
  compact(revision: number): Promise<void>;
  /** The store becomes unreachable, as an etcd killed: clients fail, watches break. */
  interrupt(): Promise<void>;
  /** Reachable again, with the data it had. */
  restore(): Promise<void>;
  stop(): Promise<void>;
}

export type BackendName = 'etcd' | 'memory';

export interface BackendKind {
  readonly name: BackendName;
  /** Why a suite on this backend is skipped, or false. */
  readonly skip: string | false;
  start(): Promise<StoreBackend>;
}

export const ETCD_BACKEND: BackendKind = {
  name: 'etcd',
  skip: existsSync(ETCD_BINARY) ? false : `no etcd at ${ETCD_BINARY} (apt-get install etcd-server)`,
  async start() {
    const server = await EtcdServer.start();
    const admin = new EtcdStore({ endpoints: [server.endpoint] });
    return {
      name: 'etcd',
      description: `etcd ${server.endpoint}`,
      client: (options = {}) => new EtcdStore({ endpoints: [server.endpoint], ...options }),
      compact: (revision) => admin.compact(revision),
      interrupt: () => server.kill(),
      restore: () => server.resume(),
      async stop() {
        await admin.close();
        await server.stop();
      },
    };
  },
};

export const MEMORY_BACKEND: BackendKind = {
  name: 'memory',
  skip: false,
  start() {
    const keyspace = new MemoryKeyspace();
    return Promise.resolve({
      name: 'memory',
      description: 'memory store',
      client: ({ backoff, timers } = {}) =>
        new MemoryStore(keyspace, { ...(backoff && { backoff }), ...(timers && { timers }) }),
      compact: (revision) => Promise.resolve().then(() => keyspace.compact(revision)),
      interrupt: () => Promise.resolve().then(() => keyspace.beginOutage()),
      restore: () => Promise.resolve().then(() => keyspace.endOutage()),
      stop: () => Promise.resolve(),
    });
  },
};

/** Every backend, for suites that run on each (those that cannot are skipped, saying why). */
export const BACKENDS: readonly BackendKind[] = [MEMORY_BACKEND, ETCD_BACKEND];

/** The one backend of a suite that runs once: VPPNET_TEST_STORE's, else etcd where present, else memory. */
export const TEST_BACKEND: BackendKind = chooseBackend(process.env.VPPNET_TEST_STORE);

function chooseBackend(named: string | undefined): BackendKind {
  if (named === 'memory') return MEMORY_BACKEND;
  if (named === 'etcd') return ETCD_BACKEND;
  if (named !== undefined && named !== '') throw new Error(`VPPNET_TEST_STORE=${named}: name etcd or memory`);
  return ETCD_BACKEND.skip === false ? ETCD_BACKEND : MEMORY_BACKEND;
}
