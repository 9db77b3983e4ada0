/**
 * A command line the CLI cannot run; the executable exits 2 (README: 2 is a usage error). In its
 * own module so that every command's parser (install-cni.ts, datastore.ts) can raise it without
 * importing the entry point.
 */
import { VppnetError } from '../util/errors.js';

export class CliUsageError extends VppnetError<'VPPNET_ERR_USAGE'> {
  override readonly name = 'CliUsageError';
  constructor(message: string) {
    super('VPPNET_ERR_USAGE', message);
  }
}
