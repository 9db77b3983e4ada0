/**
 * The hypervisor's reconcile with this machine's files injected (the vhost-user sockets'
 * directories and access, agent/host-files.ts), for the hypervisor's tests whose VPP binds real
 * sockets: src/hypervisor takes its HostFiles from the caller and does not import the agent's.
 * The agent binds them the same way (agent/reconciler.ts).
 */
import { linuxHostFiles } from '../../src/agent/host-files.js';
import type { AgentConfig } from '../../src/config/model.js';
import {
  reconcile as reconcileHypervisor,
  type ReconcileOptions,
  type ReconcileOutcome,
} from '../../src/hypervisor/reconcile.js';

export function reconcile(
  config: AgentConfig,
  opts: Omit<ReconcileOptions, 'files'>,
): Promise<ReconcileOutcome> {
  return reconcileHypervisor(config, { ...opts, files: linuxHostFiles });
}
