/** Runs the VPP simulator on the socket given as argv[2] until SIGTERM; signals readiness over IPC. */
import { VppSimulator } from '../../src/vpp/sim/index.js';

const socketPath = process.argv[2];
if (!socketPath) throw new Error('usage: sim-process SOCKET');
const sim = await VppSimulator.start({ socketPath, checkHostInterfaces: false });
process.send?.('ready');
process.on('SIGTERM', () => {
  void sim.close().then(() => process.exit(0));
});
