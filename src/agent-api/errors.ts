/**
 * The error codes of the agent's local API. Every non-2xx answer carries one in its AgentErrorBody,
 * and vppnet-cni prints it to the container runtime unchanged, so the codes are CNI error codes
 * (spec 1.1.0 "Well-known Error Codes", plus the plugin-specific ones >= 100): the agent chooses
 * the code the runtime should see. vppnet-cni's own table (src/cni/errors.ts) takes the
 * plugin-specific ones from here.
 */
import { VppnetError } from '../util/errors.js';
import type { AgentErrorBody } from './protocol.js';

export const AgentErrorCode = {
  /** The request body is not JSON. */
  DECODING_FAILURE: 6,
  /** A request the agent rejects (bad field, method not allowed on a known path). */
  INVALID_NETWORK_CONFIG: 7,
  /** VPP is not (yet) connected, did not answer, or a removal was only partial. */
  TRY_AGAIN_LATER: 11,
  /** STATUS while VPP is not connected. */
  PLUGIN_NOT_AVAILABLE: 50,
  /** CNI_IFNAME already exists in the pod's netns (so the agent cannot create it). */
  POD_IFNAME_EXISTS: 100,
  /** No attachment for (containerId, ifname) (CHECK). */
  ATTACHMENT_NOT_FOUND: 101,
  /** The agent cannot open CNI_NETNS on ADD/CHECK. */
  NETNS_NOT_FOUND: 102,
  /** ADD: another attachment on this node holds an address the request claims. */
  ADDRESS_TAKEN: 103,
  /** A route the socket does not serve: the service-map socket answers only GET /v1/service-map. */
  NOT_ON_THIS_SOCKET: 104,
  INTERNAL: 999,
} as const;

/** A failure the agent answers with its code: the server turns it into an AgentErrorBody. */
export class AgentApiError extends VppnetError<number> {
  readonly msg: string;
  readonly details: string | undefined;

  constructor(code: number, msg: string, details?: string, options?: ErrorOptions) {
    super(code, details === undefined || details === '' ? msg : `${msg}: ${details}`, options);
    this.name = 'AgentApiError';
    this.msg = msg;
    this.details = details === '' ? undefined : details;
  }

  toBody(): AgentErrorBody {
    return this.details === undefined
      ? { code: this.code, msg: this.msg }
      : { code: this.code, msg: this.msg, details: this.details };
  }
}

/** HTTP status per code: what a human with curl should see; the plugin reads the body. */
export function httpStatusOf(code: number): number {
  switch (code) {
    case AgentErrorCode.INVALID_NETWORK_CONFIG:
    case AgentErrorCode.DECODING_FAILURE:
      return 400;
    case AgentErrorCode.ATTACHMENT_NOT_FOUND:
    case AgentErrorCode.NETNS_NOT_FOUND:
      return 404;
    case AgentErrorCode.NOT_ON_THIS_SOCKET:
      return 403;
    case AgentErrorCode.POD_IFNAME_EXISTS:
    case AgentErrorCode.ADDRESS_TAKEN:
      return 409;
    case AgentErrorCode.TRY_AGAIN_LATER:
    case AgentErrorCode.PLUGIN_NOT_AVAILABLE:
      return 503;
    default:
      return 500;
  }
}
