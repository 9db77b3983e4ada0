/**
 * The one spelling of the etcd connection flags, for vppnet-agent and vppnet alike: the same
 * setting has the same name in both programs (and the same environment variable,
 * connection-settings.ts). vppnet spelled them shorter before (--endpoints, --prefix, --ca, …);
 * it still accepts those as aliases, so that scripts written for it keep working.
 */
import type { ConnectionFlagNames, ConnectionFlags, ConnectionValueSetting } from './connection-settings.js';

/** node:util parseArgs options of the flags, by their one name. */
export const CONNECTION_OPTIONS = {
  'etcd-endpoints': { type: 'string' },
  'datastore-prefix': { type: 'string' },
  'etcd-ca': { type: 'string' },
  'etcd-cert': { type: 'string' },
  'etcd-key': { type: 'string' },
  'etcd-user': { type: 'string' },
  'etcd-password-file': { type: 'string' },
  /** A switch: plaintext etcd beyond loopback is refused without it (connection-settings.ts). */
  'etcd-insecure': { type: 'boolean' },
} as const;

/** parseArgs options of vppnet's earlier spellings. */
export const CONNECTION_ALIAS_OPTIONS = {
  endpoints: { type: 'string' },
  prefix: { type: 'string' },
  ca: { type: 'string' },
  cert: { type: 'string' },
  key: { type: 'string' },
  user: { type: 'string' },
  'password-file': { type: 'string' },
} as const;

type OptionName = keyof typeof CONNECTION_OPTIONS;
type AliasName = keyof typeof CONNECTION_ALIAS_OPTIONS;

const OPTION_OF = {
  endpoints: 'etcd-endpoints',
  prefix: 'datastore-prefix',
  ca: 'etcd-ca',
  cert: 'etcd-cert',
  key: 'etcd-key',
  user: 'etcd-user',
  passwordFile: 'etcd-password-file',
} as const satisfies { readonly [K in ConnectionValueSetting]: OptionName };

const ALIAS_OF = {
  endpoints: 'endpoints',
  prefix: 'prefix',
  ca: 'ca',
  cert: 'cert',
  key: 'key',
  user: 'user',
  passwordFile: 'password-file',
} as const satisfies { readonly [K in ConnectionValueSetting]: AliasName };

const SETTINGS = Object.keys(OPTION_OF) as ConnectionValueSetting[];

/** Each setting's flag, as errors name it: `--etcd-endpoints`, …. */
export const CONNECTION_FLAGS: ConnectionFlagNames = flagNames(OPTION_OF);

/** Each setting's alias in vppnet: `--endpoints`, …. */
export const CONNECTION_FLAG_ALIASES: ConnectionFlagNames = flagNames(ALIAS_OF);

/** A command line that gives one setting two values, through its flag and its alias. */
export class ConnectionFlagConflictError extends Error {
  override readonly name = 'ConnectionFlagConflictError';
  readonly code = 'VPPNET_ERR_CONNECTION_FLAGS';
}

/**
 * The settings from parseArgs' values of CONNECTION_OPTIONS, and with `aliases` of
 * CONNECTION_ALIAS_OPTIONS too. A setting given by both spellings must be given the same value:
 * which of two would win is not something an operator should have to know.
 */
export function connectionFlagsOf(
  values: Readonly<Record<string, unknown>>,
  options: { readonly aliases: boolean },
): ConnectionFlags {
  const flags: Record<string, string> = {};
  for (const setting of SETTINGS) {
    const value = stringValue(values[OPTION_OF[setting]]);
    const alias = options.aliases ? stringValue(values[ALIAS_OF[setting]]) : undefined;
    if (value !== undefined && alias !== undefined && value !== alias)
      throw new ConnectionFlagConflictError(
        `${CONNECTION_FLAG_ALIASES[setting]} is an alias of ${CONNECTION_FLAGS[setting]}: give one value, not ${JSON.stringify(value)} and ${JSON.stringify(alias)}`,
      );
    const given = value ?? alias;
    if (given !== undefined) flags[setting] = given;
  }
  return values['etcd-insecure'] === true ? { ...flags, insecure: true } : flags;
}

/** Every spelling of the flags a command line may give, for "goes with --datastore etcd" checks. */
export function connectionOptionNames(options: { readonly aliases: boolean }): string[] {
  return [
    ...Object.keys(CONNECTION_OPTIONS),
    ...(options.aliases ? Object.keys(CONNECTION_ALIAS_OPTIONS) : []),
  ];
}

function stringValue(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

// Spelled out rather than built from SETTINGS: the compiler then checks every setting has its flag.
function flagNames(options: { readonly [K in ConnectionValueSetting]: string }): ConnectionFlagNames {
  return {
    endpoints: `--${options.endpoints}`,
    prefix: `--${options.prefix}`,
    ca: `--${options.ca}`,
    cert: `--${options.cert}`,
    key: `--${options.key}`,
    user: `--${options.user}`,
    passwordFile: `--${options.passwordFile}`,
  };
}
