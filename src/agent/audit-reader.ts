/**
 * The VPP connection fleet mode's drift check reads its large dumps on. A connection of its own:
 * on the agent's one, every route delta sent while 100k steering details stream in would be
 * answered only after them (VPP answers a connection in order).
 */
import type { VppApi } from '../vpp/client/vpp-api.js';
import { VppClient } from '../vpp/client/vpp-client.js';

/**
 * The deadline of each of the drift check's dumps: read at the pace the passes leave, 100k
 * steering details may take far longer than an ordinary request may.
 */
const DRIFT_CHECK_DUMP_TIMEOUT_MS = 180_000;

/** A connected reader; the drift check closes it when done. */
export interface AuditReader {
  readonly api: VppApi;
  close(): Promise<void>;
}

/**
 * Opens a reader whose socket reads wait for `readGate` (the drift check's turn to go on).
 * Tests inject one that reads on their own client.
 */
export type OpenAuditReader = (readGate: () => Promise<void>) => Promise<AuditReader>;

/** Readers on VPP's API socket at `socketPath`: connected and answering when handed over. */
export function socketAuditReaders(socketPath: string): OpenAuditReader {
  return async (readGate) => {
    const reader = new VppClient({
      socketPath,
      clientName: 'vppnet-agent-drift-check',
      offlineQueue: false,
      healthCheckIntervalMs: 0,
      retryStrategy: () => null,
      // Its 100k details are decoded and compared as they come, at the pace passes leave — and
      // one socket read per turn of the event loop even when no pass runs: libuv reads a socket
      // up to 32 times in a row, and ~2 MB of details compared in one go held back the timer of
      // the next pass (bench/fleet (c): passes of 100 changes stalled ~0.7 s during the check).
      readGate,
      requestTimeoutMs: DRIFT_CHECK_DUMP_TIMEOUT_MS,
    });
    try {
      await reader.connect();
      await reader.ping();
    } catch (err) {
      await reader.close();
      throw err;
    }
    return { api: reader, close: () => reader.close() };
  };
}
