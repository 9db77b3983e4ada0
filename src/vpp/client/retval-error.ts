import { VppError } from '../errors.js';
import { retvalName } from './vnet-errors.js';

/**
 * A request VPP answered with a non-zero retval; names the message, the number and its meaning,
 * and keeps the reply for callers that expect a retval and need the rest of it (cli_inband's text).
 */
export class VppRetvalError extends VppError {
  readonly messageName: string;
  readonly retval: number;
  readonly errorName: string;
  /** The decoded reply, when the error came from one. */
  readonly reply: Readonly<Record<string, unknown>> | undefined;
  constructor(messageName: string, retval: number, reply?: Readonly<Record<string, unknown>>) {
    const errorName = retvalName(messageName, retval);
    super('VPPNET_ERR_RETVAL', `${messageName}: VPP returned ${retval} (${errorName})`);
    this.name = 'VppRetvalError';
    this.messageName = messageName;
    this.retval = retval;
    this.errorName = errorName;
    this.reply = reply;
  }
}

/**
 * For `.catch(ignoreRetval)` where a non-zero retval is an expected answer (cleanup of what may
 * be gone, a plugin that is disabled): resolves undefined for VppRetvalError, rethrows the rest
 * (a lost connection, a timeout).
 */
export function ignoreRetval(err: unknown): undefined {
  if (err instanceof VppRetvalError) return undefined;
  throw err;
}
