/**
 * Where a test's VPP is: a real one when VPP_API_SOCKET is set (maintainers run the same suites
 * against VPP 26.06 that way), otherwise a fresh simulator on a socket in a temp dir.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { VppClient } from '../../src/vpp/client/vpp-client.js';
import { VppSimulator, type VppSimulatorOptions } from '../../src/vpp/sim/index.js';

export interface VppTarget {
  readonly socketPath: string;
  /** Present when running against the simulator: fault injection and state inspection. */
  readonly sim: VppSimulator | undefined;
  readonly real: boolean;
  close(): Promise<void>;
}

export const REAL_VPP_SOCKET = process.env.VPP_API_SOCKET;

/** Skip reason for tests that need the simulator's fault injection. */
export const SIM_ONLY = REAL_VPP_SOCKET
  ? 'needs the simulator (fault injection); VPP_API_SOCKET is set'
  : false;

export async function startVppTarget(opts: Partial<VppSimulatorOptions> = {}): Promise<VppTarget> {
  if (REAL_VPP_SOCKET) {
    return { socketPath: REAL_VPP_SOCKET, sim: undefined, real: true, close: () => Promise.resolve() };
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-sim-'));
  const socketPath = path.join(dir, 'api.sock');
  const sim = await VppSimulator.start({ ...opts, socketPath });
  return {
    socketPath,
    sim,
    real: false,
    close: async () => {
      await sim.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A client of the test's VPP, connected: no health checks (a test's VPP does not hang), and a
 * reconnect every 20 ms after a restart or a dropped connection the test caused.
 */
export async function connectedClient(socketPath: string, clientName: string): Promise<VppClient> {
  const client = new VppClient({ socketPath, clientName, healthCheckIntervalMs: 0, retryStrategy: () => 20 });
  await client.connect();
  return client;
}
