/**
 * The building blocks of the config schema: TypeBox schemas for the field kinds the agent config
 * uses, each carrying what the configuration reference shows (`docType`, `defaultText`) and the
 * field-named message a wrong value gets (`errorMessage`; errors.ts maps TypeBox's errors to it).
 * The formats are the shared ones of src/net, registered once with TypeBox here.
 */
import {
  FormatRegistry,
  Type,
  type SchemaOptions,
  type TInteger,
  type TString,
  type TSchema,
} from '../typebox.js';
import {
  isIp4,
  isIp6,
  parseIp4Prefix,
  parseIp6Prefix,
  type Ip4Prefix,
  type Ip6Prefix,
} from '../../net/ip.js';
import { hostBitsProblem, isIp6Network } from '../../net/network-prefix.js';
import { isLinkName } from '../../net/link-name.js';
import { isMac } from '../../net/mac.js';

/** What the reference and the error mapping read from a schema, besides JSON Schema's own keys. */
export interface FieldAnnotations {
  /** The type column of the reference; derived from the schema when absent. */
  readonly docType?: string;
  /** The default as the reference says it, when it is computed (e.g. "locator + id"). */
  readonly defaultText?: string;
  /** The message for a wrong value (and, without requiredMessage, a missing one). */
  readonly errorMessage?: string;
  readonly requiredMessage?: string;
  /** The message for a list shorter than minItems. */
  readonly minItemsMessage?: string;
  /** A uid or gid: a user or group name gets a message saying how to find the number. */
  readonly unixId?: boolean;
  readonly description?: string;
  readonly default?: unknown;
  readonly format?: string;
  readonly minimum?: number;
  readonly maximum?: number;
}

/** A schema's annotations (any TypeBox schema may carry them: its options are open). */
export function annotations(schema: TSchema): FieldAnnotations {
  return schema;
}

type Options = SchemaOptions & FieldAnnotations;

/**
 * A prefix is parsed once per value: the format check parses it and the check pass asks for the
 * same string right after (100k remote routes), so the last parse of each family is kept. Of
 * IPv6, the last few: a node section's format checks parse its underlay address, locator and
 * BSID prefix before its check pass asks for them again, and fleet mode checks 10k node records
 * at an agent's start (issue 25). IPv6 network prefixes are not kept (FORMATS['ip6-network']).
 */
let last4Text = '';
let last4: Ip4Prefix | undefined;
const KEPT_IP6 = 4;
const last6Texts: string[] = new Array<string>(KEPT_IP6).fill('');
const last6: (Ip6Prefix | undefined)[] = new Array<Ip6Prefix | undefined>(KEPT_IP6).fill(undefined);
/** Where the next parse is kept: the oldest. */
let next6 = 0;

export function parsedIp4Prefix(text: string): Ip4Prefix | undefined {
  if (last4Text !== text) {
    last4Text = text;
    last4 = parseIp4Prefix(text);
  }
  return last4;
}

/** Drops the kept parses: their text may be a slice of a whole config file. */
export function forgetParsedPrefixes(): void {
  last4Text = '';
  last4 = undefined;
  last6Texts.fill('');
  last6.fill(undefined);
  checkedIp6.clear();
}

export function parsedIp6Prefix(text: string): Ip6Prefix | undefined {
  for (let i = 0; i < KEPT_IP6; i++) if (last6Texts[i] === text) return last6[i];
  const parsed = parseIp6Prefix(text);
  last6Texts[next6] = text;
  last6[next6] = parsed;
  next6 = (next6 + 1) % KEPT_IP6;
  return parsed;
}

/**
 * IPv6 addresses already checked: remote SIDs repeat (one per remote node and VPC) across 100k
 * routes. Bounded, and emptied after each validation (forgetParsedPrefixes).
 */
const checkedIp6 = new Map<string, boolean>();

function isIp6Checked(s: string): boolean {
  let ok = checkedIp6.get(s);
  if (ok === undefined) {
    if (checkedIp6.size >= 65_536) checkedIp6.clear();
    checkedIp6.set(s, (ok = isIp6(s)));
  }
  return ok;
}

/** A subnet or route written in IPv6: IPv4 text never holds a colon. */
export function isWrittenIp6(v: unknown): boolean {
  return typeof v === 'string' && v.includes(':');
}

/** The formats, each with its reference type and its message. */
export const FORMATS = {
  ip4: { check: isIp4, docType: 'IPv4 address', message: 'must be an IPv4 address' },
  ip6: { check: isIp6Checked, docType: 'IPv6 address', message: 'must be an IPv6 address' },
  'ip4-prefix': {
    check: (s: string) => parsedIp4Prefix(s) !== undefined,
    docType: 'IPv4 prefix',
    message: 'must be an IPv4 prefix like 10.0.0.0/24',
  },
  'ip6-prefix': {
    check: (s: string) => parsedIp6Prefix(s) !== undefined,
    docType: 'IPv6 prefix',
    message: 'must be an IPv6 prefix like fc00:1::/48',
  },
  /**
   * Network-only prefixes (src/net/network-prefix.ts): routes, subnets, allowed sources. An IPv6
   * one is read as numbers, not kept: a check pass that needs it (a node's 100k remote routes)
   * asks for it after the whole list's format checks, when a kept parse is long gone.
   */
  'ip4-network': {
    check: (s: string) => isNetwork(parsedIp4Prefix(s), 4),
    docType: 'IPv4 prefix',
    message: 'must be an IPv4 prefix like 10.0.0.0/24',
  },
  'ip6-network': {
    check: isIp6Network,
    docType: 'IPv6 prefix',
    message: 'must be an IPv6 prefix like fc00:1::/48',
  },
  'ip-network': {
    check: (s: string) => (isWrittenIp6(s) ? isIp6Network(s) : isNetwork(parsedIp4Prefix(s), 4)),
    docType: 'IPv4 or IPv6 prefix',
    message: 'must be an IPv4 prefix like 10.0.0.0/24',
  },
  /** Absolute and normalized: what is checked is what is opened. */
  'file-path': {
    check: (s: string) => pathProblem(s, 'file') === undefined,
    docType: 'absolute path',
    message: '',
  },
  'directory-path': {
    check: (s: string) => pathProblem(s, 'directory') === undefined,
    docType: 'absolute path',
    message: '',
  },
  mac: { check: isMac, docType: 'MAC address', message: 'must be a MAC address like 52:54:00:12:34:56' },
  'link-name': {
    check: isLinkName,
    docType: 'interface name',
    message: 'must be a Linux interface name (1-15 characters)',
  },
  /** Permission bits written as a quoted octal string ('0660', '660' or '0o660'). */
  'octal-mode': {
    check: (s: string) => /^(?:0o?)?[0-7]{3,4}$/.test(s),
    docType: 'octal string',
    message: "must be an octal mode like '0660'",
  },
} as const;

export type FormatName = keyof typeof FORMATS;

for (const [name, f] of Object.entries(FORMATS)) FormatRegistry.Set(name, f.check);

function pathProblem(v: string, what: 'file' | 'directory'): string | undefined {
  if (!v.startsWith('/')) return 'must be an absolute path';
  // VPP reads a socket path as a C string and sends it back cut at the first NUL: a path holding
  // one named another socket than the one checked (two ports could share it) and never matched
  // VPP's dump. Newlines and other control characters have no place in a path either.
  if (/\p{Cc}/u.test(v)) return 'must hold no control character (NUL, newline, tab, …)';
  if (
    (v.endsWith('/') && v !== '/') ||
    v.split('/').some((part, i) => i > 0 && (part === '' || part === '.' || part === '..'))
  )
    return `must be a normalized path to a ${what} (no //, . or .. parts, no trailing /)`;
  if (what === 'directory' && v === '/') return 'must not be / itself';
  return undefined;
}

function isNetwork(p: Ip4Prefix | Ip6Prefix | undefined, family: 4 | 6): boolean {
  return p !== undefined && hostBitsProblem(p, family) === undefined;
}

/** The message of a value of `format` that is wrong, by what was written. */
export function formatMessage(format: string, value: unknown): string | undefined {
  if (format.endsWith('-network') && typeof value === 'string') {
    const family = format === 'ip4-network' || (format === 'ip-network' && !isWrittenIp6(value)) ? 4 : 6;
    const p = family === 4 ? parsedIp4Prefix(value) : parsedIp6Prefix(value);
    if (p) return hostBitsProblem(p, family);
    return FORMATS[family === 4 ? 'ip4-prefix' : 'ip6-prefix'].message;
  }
  if (format === 'file-path' || format === 'directory-path')
    return typeof value === 'string'
      ? pathProblem(value, format === 'file-path' ? 'file' : 'directory')
      : 'must be an absolute path';
  if (format === 'octal-mode' && typeof value === 'number')
    return `must be a quoted octal string like '0660' (YAML reads ${value} as a decimal number)`;
  return (FORMATS as Record<string, { message: string } | undefined>)[format]?.message;
}

export function formatted(format: FormatName, options: Options = {}): TString {
  return Type.String({ format, ...options });
}

export function integer(minimum: number, maximum: number, options: Options = {}): TInteger {
  return Type.Integer({ minimum, maximum, ...options });
}

/** A numeric uid or gid: the agent does not see the host's user names. */
export function unixId(options: Options = {}): TInteger {
  return integer(0, 0xfffffffe, { unixId: true, ...options });
}

/** Names end up in VPP tags ("vppnet:vm:<name>", 63 bytes) and host interface names. */
export const NAME_PATTERN = '^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$';
export const NAME_MESSAGE =
  'must be 1-32 lowercase letters, digits or "-", starting and ending with a letter or digit';

export function name(options: Options = {}): TString {
  return Type.String({ pattern: NAME_PATTERN, docType: 'name', errorMessage: NAME_MESSAGE, ...options });
}

/** A Kubernetes node name (RFC 1123 subdomain): fleet mode's agents are named by spec.nodeName. */
export const NODE_NAME_PATTERN =
  '^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$';

export const NODE_NAME_MESSAGE =
  'must be a Kubernetes node name: lowercase letters, digits, "-" and ".", up to 253, each dot-separated part starting and ending with a letter or digit';

export function nodeName(options: Options = {}): TString {
  return Type.String({
    pattern: NODE_NAME_PATTERN,
    docType: 'node name',
    errorMessage: NODE_NAME_MESSAGE,
    ...options,
  });
}

/** A CNI network name, as the spec allows it. */
export function cniNetworkName(options: Options = {}): TString {
  return Type.String({
    pattern: '^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,252}$',
    docType: 'CNI network name',
    errorMessage:
      'must be a CNI network name (letters, digits, "_", "." and "-", starting with a letter or digit)',
    ...options,
  });
}

/** An existing VPP interface, by its VPP name. */
export function vppInterface(options: Options = {}): TString {
  return Type.String({
    minLength: 1,
    docType: 'string',
    errorMessage: 'must name an existing VPP interface',
    ...options,
  });
}

/** An absolute, normalized path to a file or a directory. */
export function absolutePath(what: 'file' | 'directory', options: Options = {}): TString {
  return Type.String({ format: what === 'file' ? 'file-path' : 'directory-path', ...options });
}
