/**
 * Fleet mode's source over etcd: one node's FleetSource (a scoped DatastoreView that also tells
 * which remote routes changed) behind the agent's FleetDesired port.
 */
import type { ConnectionSettings } from '../datastore/connection-settings.js';
import { EtcdStore } from '../datastore/etcd-store.js';
import { FleetSource } from '../datastore/fleet-source.js';
import type { KeySchema } from '../datastore/keys.js';
import type { KeyValueStore } from '../datastore/store.js';
import type { ViewHealth } from '../datastore/view.js';
import type { FleetDesired, FleetDesiredHandlers } from './fleet-desired.js';

export function etcdSource(settings: ConnectionSettings, nodeName: string): FleetDesired {
  return storeSource(
    new EtcdStore(settings.store),
    settings.schema,
    nodeName,
    `etcd ${settings.store.endpoints.join(',')} ${settings.schema.prefix} node ${nodeName}`,
  );
}

/** Any KeyValueStore (tests use the etcd one too); the source owns and closes the store. */
export function storeSource(
  store: KeyValueStore,
  schema: KeySchema,
  nodeName: string,
  description: string,
): FleetDesired {
  let source: FleetSource | undefined;
  const started = (): FleetSource => {
    if (!source) throw new Error('the datastore source is not started');
    return source;
  };
  return {
    description,
    start(handlers: FleetDesiredHandlers): void {
      source = new FleetSource(store, schema, nodeName, {
        onChange: () => handlers.onChange(),
        onRejected: (key, problems) =>
          handlers.onRejected(key, problems.map((p) => `${p.path}: ${p.message}`).join('; ')),
      });
      source.start();
    },
    async stop(): Promise<void> {
      source?.stop();
      await store.close();
    },
    health(): ViewHealth {
      return source?.health() ?? { synced: false, stale: false, staleSince: undefined, lastError: undefined };
    },
    whenSynced: () => started().whenSynced(),
    rejectedTotal: () => source?.rejectedTotal ?? 0,
    rejected: () => source?.rejected ?? new Map<string, string>(),
    leftOut: () => new Set(source?.problems.map((p) => p.key)).size,
    problems: () => source?.problems ?? [],
    derive: () => started().derive(),
    takeChanges: () => started().takeChanges(),
    audit: (yieldNow) => started().audit(yieldNow),
  };
}
