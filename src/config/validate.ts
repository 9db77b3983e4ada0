/**
 * Turns the parsed YAML into an AgentConfig, or reports every problem at once, each naming the
 * field (`vpcs[1].subnets[0]`) and what is wrong with it. Two steps: the schema's structural
 * checks (schema.ts, compiled once here: types, ranges, formats; unknown fields are errors, so a
 * typo never silently becomes a default), then the check pass (check-config.ts) over what the
 * schema accepted. A section or list item the schema refuses is left out of the check pass: its
 * problems are reported, and rules about it would only repeat them.
 *
 * The section validators below are also fleet mode's (src/datastore/records.ts): a record and the
 * same section of a node's YAML file are accepted and rejected alike, with the same messages.
 */
import {
  KindGuard,
  Type,
  TypeCompiler,
  type Static,
  type TObject,
  type TSchema,
  type TypeCheck,
} from './typebox.js';
import { Checker } from './checker.js';
import { checkConfig } from './check-config.js';
import { checkNode, checkVhostUserDefaults } from './check-node.js';
import { checkPorts, type PortItem } from './check-ports.js';
import { checkServices } from './check-services.js';
import { checkVpcs, type Item } from './check-vpcs.js';
import { ConfigError, type ConfigProblem } from './config-error.js';
import type {
  AgentConfig,
  NodeConfig,
  PortConfig,
  ServicesConfig,
  ServicesIp6Config,
  VhostUserDefaults,
  VpcConfig,
} from './model.js';
import { ConfigSchema } from './schema.js';
import { annotations, forgetParsedPrefixes } from './schema/fields.js';
import { NodeSchema, VhostUserSchema } from './schema/node.js';
import { AttachSchema, PortSchema, type AttachInput } from './schema/port.js';
import { RemoteRouteSchema } from './schema/remote-route.js';
import { ServicesSchema, type ServicesInput } from './schema/services.js';
import { VpcSchema } from './schema/vpc.js';

export { Checker, detached, isName, isNodeName } from './checker.js';
export { ConfigError, type ConfigProblem } from './config-error.js';
export { SERVICE_DEFAULTS } from './defaults.js';

/**
 * An object schema with its fields' own structure left to their own checks: the root's sections
 * (each checked alone, so one bad section does not hide the others' problems), a port without its
 * attachment (checked against its `type`'s variant, so a wrong field is named in that variant).
 */
function shallow(object: TObject, keep: readonly string[] = []): TObject {
  const required = new Set(object.required ?? []);
  const fields = Object.fromEntries(
    Object.entries(object.properties).map(([k, s]): [string, TSchema] => {
      const a = annotations(s);
      const inner = keep.includes(k)
        ? s
        : KindGuard.IsArray(s)
          ? Type.Array(Type.Unknown())
          : Type.Unknown({ ...(a.requiredMessage !== undefined && { requiredMessage: a.requiredMessage }) });
      return [k, required.has(k) ? inner : Type.Optional(inner)];
    }),
  );
  return Type.Object(fields, { additionalProperties: false });
}

const PORT_FIELDS = Object.keys(PortSchema.properties).filter((k) => k !== 'attach');

const CHECKS = {
  root: TypeCompiler.Compile(shallow(ConfigSchema)),
  node: TypeCompiler.Compile(NodeSchema),
  vhostUser: TypeCompiler.Compile(VhostUserSchema),
  services: TypeCompiler.Compile(ServicesSchema),
  vpc: TypeCompiler.Compile(VpcSchema),
  port: TypeCompiler.Compile(shallow(PortSchema, PORT_FIELDS)),
  remoteRoute: TypeCompiler.Compile(RemoteRouteSchema),
};

/** Each attachment variant's check, by its `type`. */
const ATTACH_CHECKS = new Map<unknown, TypeCheck<TSchema>>(
  AttachSchema.anyOf.map((variant) => [variant.properties.type.const, TypeCompiler.Compile(variant)]),
);
const ATTACH_FIELDS = [...new Set(AttachSchema.anyOf.flatMap((v) => Object.keys(v.properties)))];

export function validateConfig(raw: unknown, source?: string): AgentConfig {
  const c = new Checker();
  return forgetting(() => {
    const root = c.structure(CHECKS.root, raw ?? {}, '');
    if (!root) throw new ConfigError(c.problems, source);
    const written = Array.isArray(root.vpcs) ? (root.vpcs as unknown[]) : [];
    const config = checkConfig(c, {
      node: root.node === undefined ? undefined : c.structure(CHECKS.node, root.node, 'node'),
      services: root.services === undefined ? undefined : (servicesStructure(c, root.services) ?? false),
      vpcs: items(c, root.vpcs, 'vpcs', CHECKS.vpc),
      declared: new Set(
        written
          .map((v) => (v as { name?: unknown } | null)?.name)
          .filter((n): n is string => typeof n === 'string'),
      ),
      ports: portItems(c, root.ports),
      remoteRoutes: items(c, root.remoteRoutes, 'remoteRoutes', CHECKS.remoteRoute),
    });
    if (c.problems.length || !config) throw new ConfigError(inDocumentOrder(c.problems), source);
    return config;
  });
}

/**
 * The problems of each list in the order of its items: a list's structural problems are found
 * before the check pass runs over it. Problems of one item, and of other sections, keep their order.
 */
function inDocumentOrder(problems: readonly ConfigProblem[]): ConfigProblem[] {
  const out = [...problems];
  for (const list of ['vpcs', 'ports', 'remoteRoutes']) {
    const at: number[] = [];
    out.forEach((p, i) => {
      if (p.path.startsWith(`${list}[`)) at.push(i);
    });
    const index = (p: ConfigProblem): number => parseInt(p.path.slice(list.length + 1), 10);
    const sorted = at.map((i) => out[i] as ConfigProblem).sort((a, b) => index(a) - index(b));
    at.forEach((i, k) => (out[i] = sorted[k] as ConfigProblem));
  }
  return out;
}

/** `services:` and `ip6:` written empty (YAML null) mean the section with its defaults. */
function servicesStructure(c: Checker, raw: unknown): ServicesInput | undefined {
  let s = raw ?? {};
  if (typeof s === 'object' && !Array.isArray(s)) {
    const o = s as Record<string, unknown>;
    if (o.ip6 === null || o.vmLimits === null)
      s = { ...o, ...(o.ip6 === null && { ip6: {} }), ...(o.vmLimits === null && { vmLimits: {} }) };
  }
  return c.structure(CHECKS.services, s, 'services');
}

/** The items of list `path` the schema accepts, with their indexes; absent: none. */
function items<T extends TSchema>(
  c: Checker,
  raw: unknown,
  path: string,
  check: TypeCheck<T>,
): Item<Static<T>>[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) return c.fail(path, 'must be a list') ?? [];
  const out: Item<Static<T>>[] = [];
  raw.forEach((item: unknown, i) => {
    const v = c.structure(check, item, `${path}[${i}]`);
    if (v !== undefined) out.push({ i, v });
  });
  return out;
}

function portItems(c: Checker, raw: unknown): PortItem[] {
  const out: PortItem[] = [];
  if (raw !== undefined && !Array.isArray(raw)) c.fail('ports', 'must be a list');
  if (!Array.isArray(raw)) return out;
  raw.forEach((item: unknown, i) => {
    const path = `ports[${i}]`;
    const port = c.structure(CHECKS.port, item, path);
    const attach =
      item !== null && typeof item === 'object' && 'attach' in item
        ? attachStructure(c, item.attach, `${path}.attach`)
        : undefined;
    if (port && attach) out.push({ i, v: { ...(port as Omit<PortItem['v'], 'attach'>), attach } });
  });
  return out;
}

function attachStructure(c: Checker, raw: unknown, path: string): AttachInput | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return c.fail(path, 'must be a mapping');
  const check = ATTACH_CHECKS.get((raw as { type?: unknown }).type);
  if (check) return c.structure(check, raw, path) as AttachInput | undefined;
  c.object(raw, path, ATTACH_FIELDS);
  return c.fail(`${path}.type`, `must be one of ${[...ATTACH_CHECKS.keys()].join(', ')}`);
}

/**
 * `check` with what the formats kept of the text forgotten afterwards: fleet mode validates one
 * record at a time for as long as the agent runs, and the cache of checked IPv6 spellings would
 * otherwise keep up to 64k of them.
 */
function forgetting<T>(check: () => T): T {
  try {
    return check();
  } finally {
    forgetParsedPrefixes();
  }
}

export function validateNode(c: Checker, raw: unknown): NodeConfig | undefined {
  if (raw === undefined) return c.fail('node', annotations(NodeSchema).requiredMessage ?? '');
  return forgetting(() => {
    const n = c.structure(CHECKS.node, raw, 'node');
    return n && checkNode(c, n);
  });
}

export function validateVhostUserDefaults(c: Checker, raw: unknown): VhostUserDefaults | undefined {
  return forgetting(() => {
    const v = c.structure(CHECKS.vhostUser, raw ?? {}, 'node.vhostUser');
    return v && checkVhostUserDefaults(c, v);
  });
}

export function validateServices(c: Checker, raw: unknown): ServicesConfig | undefined {
  return forgetting(() => {
    const s = servicesStructure(c, raw);
    return s && checkServices(c, s);
  });
}

export function validateVpcs(
  c: Checker,
  raw: unknown,
  node: NodeConfig | undefined,
  services: ServicesConfig | undefined,
): VpcConfig[] {
  return forgetting(() => checkVpcs(c, items(c, raw, 'vpcs', CHECKS.vpc), node, services));
}

export function validatePorts(
  c: Checker,
  raw: unknown,
  vpcs: readonly VpcConfig[],
  declared: ReadonlySet<string>,
  vhostDefaults: VhostUserDefaults | undefined,
  node?: NodeConfig,
  servicesIp6?: ServicesIp6Config,
): PortConfig[] {
  return forgetting(() => checkPorts(c, portItems(c, raw), vpcs, declared, vhostDefaults, node, servicesIp6));
}
