/** A config's problems, each naming the field (`vpcs[1].subnets[0]`) and what is wrong with it. */
import { VppnetError } from '../util/errors.js';

export interface ConfigProblem {
  readonly path: string;
  readonly message: string;
}

export class ConfigError extends VppnetError<'VPPNET_ERR_CONFIG'> {
  readonly problems: readonly ConfigProblem[];
  constructor(problems: readonly ConfigProblem[], source?: string) {
    super(
      'VPPNET_ERR_CONFIG',
      `invalid configuration${source ? ` in ${source}` : ''}:\n` +
        problems.map((p) => `  ${p.path}: ${p.message}`).join('\n'),
    );
    this.name = 'ConfigError';
    this.problems = problems;
  }
}
