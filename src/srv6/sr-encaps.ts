/**
 * The SRv6 encapsulation globals (outer source address, outer hop limit) as VPP itself reports
 * them. VPP 26.06 has messages that set them (sr_set_encap_source, sr_set_encap_hop_limit) but
 * none that reads them back; its CLI does (src/vnet/srv6/sr_policy_rewrite.c), read-only, through
 * cli_inband:
 *
 *   show sr encaps hop-limit      →  "SR encaps hop-limit = %u"
 *   show sr encaps source addr    →  "SR encaps source addr = %U" (format_ip6_address)
 *
 * each line ended by vlib_cli_output's "\n". Both are read, not only the hop limit: the source
 * shows in every policy's dump, but a node with no policy yet (VPCs without remote routes) would
 * otherwise have no way to tell whether it is set. Reading them makes a plan truthful without the
 * agent's memory (sr-globals-file-store.ts), which remains only the fallback for an answer that
 * does not parse (another VPP version's wording, a CLI that failed).
 */
import { canonicalIp6, isIp6 } from '../net/ip.js';
import { VppRetvalError } from '../vpp/client/retval-error.js';
import type { VppApi } from '../vpp/client/vpp-api.js';
import { msg } from '../vpp/messages/index.js';

export const SR_ENCAPS_HOP_LIMIT_COMMAND = 'show sr encaps hop-limit';
export const SR_ENCAPS_SOURCE_COMMAND = 'show sr encaps source addr';

/**
 * VPP's initial encap source (a zeroed static in sr_policy_rewrite.c): nobody has set one. The
 * initial hop limit needs no such case: it is IPv6_DEFAULT_HOP_LIMIT (64), a real value.
 */
export const UNSET_ENCAP_SOURCE = '::';

export interface SrEncapsReading {
  /** The outer hop limit; undefined when VPP's answer was not understood (see problems). */
  readonly hopLimit?: number;
  /** The global encap source, canonical; '::' when never set; undefined when not understood. */
  readonly source?: string;
  /** One line per value that could not be read: the command and what VPP answered. */
  readonly problems: readonly string[];
}

/** What a VPP with nothing configured reports. */
export const INITIAL_SR_ENCAPS: SrEncapsReading = { hopLimit: 64, source: UNSET_ENCAP_SOURCE, problems: [] };

/** Both values, the two commands concurrently. Only a failed connection rejects. */
export async function readSrEncaps(client: VppApi): Promise<SrEncapsReading> {
  if (!client.supports(msg.cli_inband)) {
    const problem = "cli_inband is not in this VPP's message table";
    return {
      problems: [`${SR_ENCAPS_HOP_LIMIT_COMMAND}: ${problem}`, `${SR_ENCAPS_SOURCE_COMMAND}: ${problem}`],
    };
  }
  const [hop, source] = await Promise.all([
    cliAnswer(client, SR_ENCAPS_HOP_LIMIT_COMMAND),
    cliAnswer(client, SR_ENCAPS_SOURCE_COMMAND),
  ]);
  const problems: string[] = [];
  const hopLimit = hop.ok ? parseSrEncapsHopLimit(hop.text) : undefined;
  if (hopLimit === undefined) problems.push(problemLine(SR_ENCAPS_HOP_LIMIT_COMMAND, hop));
  const src = source.ok ? parseSrEncapsSource(source.text) : undefined;
  if (src === undefined) problems.push(problemLine(SR_ENCAPS_SOURCE_COMMAND, source));
  return { ...(hopLimit !== undefined && { hopLimit }), ...(src !== undefined && { source: src }), problems };
}

/** "SR encaps hop-limit = 64\n" → 64; anything else → undefined. */
export function parseSrEncapsHopLimit(text: string): number | undefined {
  const m = /^SR encaps hop-limit = (\d{1,3})\n?$/.exec(text);
  const n = m ? Number(m[1]) : NaN;
  // sr_pr_encaps_hop_limit is a u8 that sr_set_encap_hop_limit never sets to 0.
  return n >= 1 && n <= 255 ? n : undefined;
}

/** "SR encaps source addr = fc00::1\n" → "fc00::1" (canonical); anything else → undefined. */
export function parseSrEncapsSource(text: string): string | undefined {
  const m = /^SR encaps source addr = (\S+)\n?$/.exec(text);
  return m && isIp6(m[1] as string) ? canonicalIp6(m[1] as string) : undefined;
}

type CliAnswer =
  { readonly ok: true; readonly text: string } | { readonly ok: false; readonly error: string };

async function cliAnswer(client: VppApi, command: string): Promise<CliAnswer> {
  try {
    return { ok: true, text: await client.cli(command) };
  } catch (err) {
    // An unknown command answers retval -1; anything else (a lost connection) fails the snapshot.
    if (err instanceof VppRetvalError) return { ok: false, error: err.message };
    throw err;
  }
}

function problemLine(command: string, answer: CliAnswer): string {
  return answer.ok
    ? `${command}: VPP answered ${JSON.stringify(answer.text)}, not understood`
    : `${command}: ${answer.error}`;
}
