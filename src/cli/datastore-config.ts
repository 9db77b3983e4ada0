/**
 * A node's config as its agent in fleet mode derives it, for `vppnet plan|status --datastore etcd`:
 * the same view of the node's scope (its node record, the node records, its ports, their VPCs'
 * records and endpoints) listed once, and the same derivation, without watching on.
 */
import type { AgentConfig } from '../config/model.js';
import { EtcdStore } from '../datastore/etcd-store.js';
import { FleetSource } from '../datastore/fleet-source.js';
import type { ConnectionSettings } from '../datastore/connection-settings.js';
import { VppnetError } from '../util/errors.js';

/** How long the listing may take before the CLI gives up on an unreachable etcd. */
export const DEFAULT_LIST_TIMEOUT_MS = 10_000;

export interface DatastoreConfig {
  readonly config: AgentConfig;
  /** Records left out of it, as the agent reports them: `KEY: field: message`. */
  readonly problems: readonly string[];
  /** For the output's header: "node hv1 from etcd http://… under /vppnet/v1/". */
  readonly description: string;
}

/** No config for the node: etcd unreachable, or no valid node record under the prefix. */
export class DatastoreConfigError extends VppnetError<'VPPNET_ERR_DATASTORE_CONFIG'> {
  override readonly name = 'DatastoreConfigError';
  constructor(message: string) {
    super('VPPNET_ERR_DATASTORE_CONFIG', message);
  }
}

export async function nodeConfigFromDatastore(
  settings: ConnectionSettings,
  node: string,
  timeoutMs = DEFAULT_LIST_TIMEOUT_MS,
): Promise<DatastoreConfig> {
  const where = `etcd ${settings.store.endpoints.join(',')} under ${settings.schema.prefix}`;
  const store = new EtcdStore(settings.store);
  const source = new FleetSource(store, settings.schema, node, { onChange: () => undefined });
  let timer: NodeJS.Timeout | undefined;
  try {
    source.start();
    const listed = await Promise.race([
      source.whenSynced().then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
    ]);
    if (!listed) {
      const cause = source.health().lastError;
      throw new DatastoreConfigError(
        `node ${node}'s records not listed from ${where} within ${timeoutMs / 1000} s${cause ? `: ${cause}` : ''}`,
      );
    }
    const { config, problems } = source.derive();
    const reported = problems.map((p) => `${p.key}: ${p.path}: ${p.message}`);
    if (config === undefined) {
      throw new DatastoreConfigError(
        `no config for node ${node} from ${where}${reported.length > 0 ? `: ${reported.join('; ')}` : ''}`,
      );
    }
    return { config, problems: reported, description: `node ${node} from ${where}` };
  } finally {
    clearTimeout(timer);
    source.stop();
    await store.close();
  }
}
