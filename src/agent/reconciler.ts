/**
 * The hypervisor's reconcile (hypervisor/reconcile.ts) bound to this machine: its host files
 * unless the caller gives others. The composition itself lives in src/hypervisor, below the
 * runtime; this module keeps the agent's, the CLI's and the tests' imports where they were.
 */
import type { AgentConfig } from '../config/model.js';
import type { HostFiles } from '../dataplane/context.js';
import {
  reconcile as reconcileHypervisor,
  type ReconcileOptions as HypervisorReconcileOptions,
  type ReconcileOutcome,
} from '../hypervisor/reconcile.js';
import { linuxHostFiles } from './host-files.js';

export { hypervisorKinds as descriptors } from '../hypervisor/kinds.js';
export { desiredState, planFresh, type DesiredState } from '../hypervisor/desired-state.js';
export { REQUIRED_MESSAGES } from '../hypervisor/required-messages.js';
export {
  HOST_VETH_PREFIXES,
  memoryStore,
  type ReconcileOutcome,
  type SrGlobalsStore,
} from '../hypervisor/reconcile.js';

export interface ReconcileOptions extends Omit<HypervisorReconcileOptions, 'files'> {
  /** The vhost-user sockets' directories and access; the machine's own filesystem by default. */
  readonly files?: HostFiles;
}

export function reconcile(config: AgentConfig, opts: ReconcileOptions): Promise<ReconcileOutcome> {
  return reconcileHypervisor(config, { ...opts, files: opts.files ?? linuxHostFiles });
}
