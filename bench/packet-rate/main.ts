/**
 * bench/packet-rate: Mpps and clocks per packet of vppnet's datapaths on a real VPP 26.06, next to
 * the same paths configured by hand and plain IPv4 forwarding.
 *   VPP_API_SOCKET=/run/vpp/api.sock npm run bench:packet-rate -- [--json FILE] [--svg FILE]
 *   npm run bench:packet-rate -- --help
 * See bench/README.md.
 */
import { runPacketRate } from './run.js';

process.exitCode = await runPacketRate(process.argv.slice(2), process.env, {
  stdout: process.stdout,
  stderr: process.stderr,
});
