/** Runs the VPP simulator on the socket given as argv[2] until SIGTERM; signals readiness over IPC. */
import { VppSimulator } from '../../src/vpp/sim/index.js';

const socketPath = process.argv[2];
if (!socketPath) throw new Error('usage: sim-process SOCKET');
const sim = await VppSimulator.start({ socketPath, checkHostInterfaces: false });
process.send?.('ready');
// The parent can ask for a VPP restart (state lost, ids reshuffled), as benchmarks need.
process.on('message', (m: unknown) => {
  if (m === 'restart') void sim.restart({ reshuffleIds: true }).then(() => process.send?.('restarted'));
});
process.on('SIGTERM', () => {
  void sim.close().then(() => process.exit(0));
});
