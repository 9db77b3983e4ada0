/**
 * The one error type of vppnet-cni. Every failure the runtime should see is a CniError; skel prints it
 * unchanged as the spec's error JSON, and turns anything else into code 999. Delegated plugins' and
 * the agent's errors are re-raised as CniErrors with their own code, so they pass through as is.
 */
import { AgentErrorCode } from '../agent-api/errors.js';

import { VppnetError } from '../util/errors.js';

/** Well-known codes (spec 1.1.0, "Well-known Error Codes") and the plugin-specific ones (>= 100). */
export const CniErrorCode = {
  INCOMPATIBLE_CNI_VERSION: 1,
  UNSUPPORTED_FIELD: 2,
  UNKNOWN_CONTAINER: 3,
  INVALID_ENVIRONMENT_VARIABLES: 4,
  IO_FAILURE: 5,
  DECODING_FAILURE: 6,
  INVALID_NETWORK_CONFIG: 7,
  TRY_AGAIN_LATER: 11,
  PLUGIN_NOT_AVAILABLE: 50,
  PLUGIN_NOT_AVAILABLE_LIMITED_CONNECTIVITY: 51,
  // The plugin-specific ones are the agent's answers, passed through (src/agent-api/errors.ts).
  POD_IFNAME_EXISTS: AgentErrorCode.POD_IFNAME_EXISTS,
  ATTACHMENT_NOT_FOUND: AgentErrorCode.ATTACHMENT_NOT_FOUND,
  NETNS_NOT_FOUND: AgentErrorCode.NETNS_NOT_FOUND,
  INTERNAL: 999,
} as const;

export class CniError extends VppnetError<number> {
  readonly msg: string;
  readonly details: string | undefined;

  constructor(code: number, msg: string, details?: string, options?: ErrorOptions) {
    super(code, details === undefined || details === '' ? msg : `${msg}: ${details}`, options);
    this.name = 'CniError';
    this.msg = msg;
    this.details = details === '' ? undefined : details;
  }

  /**
   * The spec's error object; `cniVersion` is the version the runtime asked for. Deliberately not
   * named toJSON: JSON.stringify would call that with a property key in place of the version.
   */
  toSpecJson(cniVersion: string): CniErrorJson {
    const json: CniErrorJson = { cniVersion, code: this.code, msg: this.msg };
    if (this.details !== undefined) json.details = this.details;
    return json;
  }
}

export interface CniErrorJson {
  cniVersion: string;
  code: number;
  msg: string;
  details?: string;
}

/** Anything thrown that is not a CniError becomes code 999 (the spec's "internal" convention, as skel does). */
export function toCniError(err: unknown): CniError {
  if (err instanceof CniError) return err;
  if (err instanceof Error)
    return new CniError(CniErrorCode.INTERNAL, err.message, undefined, { cause: err });
  return new CniError(CniErrorCode.INTERNAL, String(err));
}

/**
 * Reads `{code, msg, details?}` as printed by another CNI plugin or answered by the agent. Returns
 * undefined when the value does not have that shape, so callers can report the raw text instead.
 */
export function cniErrorFromJson(value: unknown): CniError | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { code, msg, details } = value as Record<string, unknown>;
  if (typeof code !== 'number' || !Number.isInteger(code) || typeof msg !== 'string') return undefined;
  return new CniError(code, msg, typeof details === 'string' ? details : undefined);
}
