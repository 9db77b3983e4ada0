/**
 * Fleet mode's source over etcd: one node's DatastoreView (scoped list + watch) behind the
 * agent's FleetDesired port.
 */
import { readFileSync } from 'node:fs';
import { EtcdStore, readEtcdTls, type EtcdStoreOptions } from '../datastore/etcd-store.js';
import { KeySchema } from '../datastore/keys.js';
import type { KeyValueStore } from '../datastore/store.js';
import { DatastoreView } from '../datastore/view.js';
import type { EtcdFlags } from './agent-flags.js';
import type { FleetChanges, FleetDesired, FleetDesiredHandlers, FleetHealth } from './fleet-desired.js';

export interface DatastoreSourceOptions {
  readonly nodeName: string;
  readonly prefix: string;
  readonly etcd: EtcdStoreOptions;
}

/** The flags' files read: TLS material and the password (else VPPNET_ETCD_PASSWORD). */
export function datastoreSourceOptions(flags: EtcdFlags, env: NodeJS.ProcessEnv): DatastoreSourceOptions {
  const readable = (flag: string, file: string): void => {
    try {
      readFileSync(file);
    } catch (err) {
      throw new Error(`${flag} ${file}: ${(err as Error).message}`);
    }
  };
  if (flags.ca !== undefined) readable('--etcd-ca', flags.ca);
  if (flags.cert !== undefined) readable('--etcd-cert', flags.cert);
  if (flags.key !== undefined) readable('--etcd-key', flags.key);
  let password: string | undefined;
  if (flags.passwordFile !== undefined) {
    readable('--etcd-password-file', flags.passwordFile);
    password = readFileSync(flags.passwordFile, 'utf8').replace(/\r?\n$/, '');
  } else if (env.VPPNET_ETCD_PASSWORD) password = env.VPPNET_ETCD_PASSWORD;
  if (flags.user !== undefined && password === undefined)
    throw new Error('--etcd-user needs a password (--etcd-password-file or VPPNET_ETCD_PASSWORD)');
  return {
    nodeName: flags.nodeName,
    prefix: flags.prefix,
    etcd: {
      endpoints: flags.endpoints,
      ...(flags.ca !== undefined && { tls: readEtcdTls({ ca: flags.ca, cert: flags.cert, key: flags.key }) }),
      ...(flags.user !== undefined && password !== undefined && { auth: { user: flags.user, password } }),
    },
  };
}

export function etcdSource(options: DatastoreSourceOptions): FleetDesired {
  const store = new EtcdStore(options.etcd);
  return viewSource(
    store,
    new KeySchema(options.prefix),
    options.nodeName,
    `etcd ${options.etcd.endpoints.join(',')} ${options.prefix} node ${options.nodeName}`,
  );
}

/** Any KeyValueStore (tests use the etcd one too); the source owns and closes the store. */
export function viewSource(
  store: KeyValueStore,
  schema: KeySchema,
  nodeName: string,
  description: string,
): FleetDesired {
  let view: DatastoreView | undefined;
  let changed = false;
  const need = (): DatastoreView => {
    if (!view) throw new Error('the datastore source is not started');
    return view;
  };
  return {
    description,
    start(handlers: FleetDesiredHandlers): void {
      view = new DatastoreView(store, schema, nodeName, {
        onChange: () => {
          changed = true;
          handlers.onChange();
        },
        onRejected: (key, problems) =>
          handlers.onRejected(key, problems.map((p) => `${p.path}: ${p.message}`).join('; ')),
      });
      view.start();
    },
    async stop(): Promise<void> {
      view?.stop();
      await store.close();
    },
    health(): FleetHealth {
      return view?.health() ?? { synced: false, stale: false, staleSince: undefined, lastError: undefined };
    },
    rejected: () => view?.rejected ?? new Map<string, string>(),
    derive() {
      changed = false;
      return need().derive();
    },
    takeChanges(): FleetChanges {
      const structural = changed;
      changed = false;
      return { structural, routes: [] };
    },
  };
}
