/**
 * Errors raised by src/vpp, each with a stable code. Tests and callers check `code`, never the
 * message text, so messages may be improved freely.
 */
import { VppnetError } from '../util/errors.js';

export type VppErrorCode =
  | 'VPPNET_ERR_FRAME_TOO_LARGE'
  | 'VPPNET_ERR_DECODE'
  | 'VPPNET_ERR_ENCODE'
  | 'VPPNET_ERR_TIMEOUT'
  | 'VPPNET_ERR_CONN_LOST'
  | 'VPPNET_ERR_NOT_CONNECTED'
  | 'VPPNET_ERR_CLOSED'
  | 'VPPNET_ERR_QUEUE_FULL'
  | 'VPPNET_ERR_HANDSHAKE'
  | 'VPPNET_ERR_INCOMPATIBLE'
  | 'VPPNET_ERR_RETVAL'
  | 'VPPNET_ERR_UNKNOWN_MESSAGE';

export class VppError extends VppnetError<VppErrorCode> {
  constructor(code: VppErrorCode, message: string, options?: ErrorOptions) {
    super(code, message, options);
    this.name = 'VppError';
  }
}
