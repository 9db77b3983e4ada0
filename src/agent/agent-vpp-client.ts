/**
 * The agent's session with VPP, as main.ts (and tests that run a whole agent) open it: the
 * agent starts and closes it, and it reconnects by itself.
 */
import type { ManagedVppApi } from '../vpp/client/vpp-api.js';
import { VppClient } from '../vpp/client/vpp-client.js';
import { REQUIRED_MESSAGES } from '../hypervisor/required-messages.js';

export function agentVppClient(socketPath: string): ManagedVppApi {
  return new VppClient({
    socketPath,
    clientName: 'vppnet-agent',
    requiredMessages: REQUIRED_MESSAGES,
    // Never queue while disconnected: a queued op would reach the next VPP process with the
    // interface indexes of the last one. Fail it; the resync after the reconnect redoes it.
    offlineQueue: false,
  });
}
