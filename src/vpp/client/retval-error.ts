import { VppError } from '../errors.js';
import { retvalName } from './vnet-errors.js';

/** A request VPP answered with a non-zero retval; names the message, the number and its meaning. */
export class VppRetvalError extends VppError {
  readonly messageName: string;
  readonly retval: number;
  readonly errorName: string;
  constructor(messageName: string, retval: number) {
    const errorName = retvalName(messageName, retval);
    super('VPPNET_ERR_RETVAL', `${messageName}: VPP returned ${retval} (${errorName})`);
    this.name = 'VppRetvalError';
    this.messageName = messageName;
    this.retval = retval;
    this.errorName = errorName;
  }
}
