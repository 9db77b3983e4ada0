/**
 * The hypervisor's reconcile (hypervisor/reconcile.ts) bound to this machine: its host files
 * unless the caller gives others. The composition itself lives in src/hypervisor, below the
 * runtime, and everything else of it is imported from there; this module adds only the machine.
 */
import type { AgentConfig } from '../config/model.js';
import type { HostFiles } from '../dataplane/context.js';
import {
  reconcile as reconcileHypervisor,
  type ReconcileOptions as HypervisorReconcileOptions,
  type ReconcileOutcome,
} from '../hypervisor/reconcile.js';
import { linuxHostFiles } from './host-files.js';

export interface ReconcileOptions extends Omit<HypervisorReconcileOptions, 'files'> {
  /** The vhost-user sockets' directories and access; the machine's own filesystem by default. */
  readonly files?: HostFiles;
}

export function reconcile(config: AgentConfig, opts: ReconcileOptions): Promise<ReconcileOutcome> {
  return reconcileHypervisor(config, { ...opts, files: opts.files ?? linuxHostFiles });
}
