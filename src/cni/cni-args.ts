/**
 * CNI_ARGS: "K=V;K2=V2", as the spec describes it. Runtimes put keys there that no plugin knows
 * (K8S_POD_NAME, IgnoreUnknown, ...), so unknown keys are kept and ignored, never an error; only a
 * malformed pair is.
 */

export type CniArgs = ReadonlyMap<string, string>;

/** Throws a RangeError naming the bad pair; skel reports it as an invalid CNI_ARGS (code 4). */
export function parseCniArgs(text: string): CniArgs {
  const args = new Map<string, string>();
  if (text === '') return args;
  for (const pair of text.split(';')) {
    const parts = pair.split('=');
    if (parts.length !== 2 || parts[0] === '') {
      throw new RangeError(`invalid pair ${JSON.stringify(pair)}, expected KEY=VALUE`);
    }
    args.set(parts[0] as string, parts[1] as string);
  }
  return args;
}
