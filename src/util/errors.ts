/**
 * The base of every error vppnet raises on purpose. Each carries a stable `code` that callers and
 * tests branch on; the message is for people and may be reworded freely. Codes are strings
 * (VPPNET_ERR_…), except the CNI plugin's, which are the CNI spec's numbers. `instanceof` works per
 * area (VppError, NetnsError, CniError, …) and across them (VppnetError).
 */
export class VppnetError<Code extends string | number = string | number> extends Error {
  readonly code: Code;
  constructor(code: Code, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
