/**
 * Writes the TypeScript definitions of a chosen list of messages: the messages, their replies,
 * details and events, and every type they use, each exactly once, with its CRC. The output is
 * plain data (`as const`), interpreted by src/vpp/codec at run time and by its types at compile
 * time.
 */
import type { ApiField, ApiIndex, ApiMessage } from './api-json.js';

export const GENERATOR_VERSION = 1;

/** Byte aliases that the codec shows as text. */
const TEXT_FORMATS: Readonly<Record<string, string>> = {
  ip4_address: 'ip4',
  ip6_address: 'ip6',
  mac_address: 'mac',
};

const PRIMITIVES = new Set(['u8', 'i8', 'u16', 'i16', 'u32', 'i32', 'u64', 'i64', 'f64', 'bool', 'string']);

export interface EmitOptions {
  readonly vppVersion: string;
  /** Requests (and stand-alone messages) to include; replies, details and events follow. */
  readonly messages: readonly string[];
}

function typeName(apiType: string): string {
  const m = /^vl_api_(.+)_t$/.exec(apiType);
  return m ? (m[1] as string) : apiType;
}

function ident(name: string): string {
  return `${name}_t`;
}

export function emitDefinitions(index: ApiIndex, opts: EmitOptions): string {
  const typeOut: string[] = [];
  const emittedTypes = new Set<string>();
  const msgOut: string[] = [];
  const emittedMsgs = new Set<string>();
  const usedFiles = new Set<string>();

  const refOf = (apiType: string): string => {
    if (PRIMITIVES.has(apiType)) return `'${apiType}'`;
    const name = typeName(apiType);
    emitType(name);
    return ident(name);
  };

  const fieldsOf = (
    owner: string,
    fields: readonly ApiField[],
  ): { code: string; defaults: Record<string, unknown> } => {
    const parts: string[] = [];
    const defaults: Record<string, unknown> = {};
    for (const f of fields) {
      const [type, name, ...rest] = f;
      const last = rest[rest.length - 1];
      const dims = last !== null && typeof last === 'object' ? rest.slice(0, -1) : rest;
      if (last !== null && typeof last === 'object' && 'default' in last) {
        let d = last.default;
        if (type === 'bool' && typeof d === 'string') d = d === 'true';
        defaults[name] = d;
      }
      if (dims.length > 2) throw new Error(`${owner}.${name}: unexpected field shape ${JSON.stringify(f)}`);
      const ref = refOf(type);
      const dimCode = dims.map((d) => JSON.stringify(d)).join(', ');
      parts.push(dims.length ? `['${name}', ${ref}, ${dimCode}]` : `['${name}', ${ref}]`);
    }
    return { code: `[${parts.join(', ')}]`, defaults };
  };

  const defaultsCode = (defaults: Record<string, unknown>): string =>
    Object.keys(defaults).length ? `, defaults: ${JSON.stringify(defaults)}` : '';

  function emitType(name: string): void {
    if (emittedTypes.has(name)) return;
    emittedTypes.add(name);
    const alias = index.aliases.get(name);
    if (alias) {
      const ref = refOf(alias.type);
      const len = alias.length !== undefined ? `, length: ${alias.length}` : '';
      const fmt = TEXT_FORMATS[name] ? `, format: '${TEXT_FORMATS[name]}'` : '';
      typeOut.push(
        `export const ${ident(name)} = { kind: 'alias', name: '${name}', type: ${ref}${len}${fmt} } as const satisfies AliasDef;`,
      );
      return;
    }
    const en = index.enums.get(name);
    if (en) {
      const values = en.values.map(([k, v]) => `${k}: ${v}`).join(', ');
      typeOut.push(
        `export const ${ident(name)} = { kind: '${en.kind}', name: '${name}', width: '${en.width}', values: { ${values} } } as const satisfies EnumDef;`,
      );
      return;
    }
    const union = index.unions.get(name);
    if (union) {
      const { code } = fieldsOf(name, union);
      typeOut.push(
        `export const ${ident(name)} = { kind: 'union', name: '${name}', arms: ${code} } as const satisfies UnionDef;`,
      );
      return;
    }
    const struct = index.structs.get(name);
    if (struct) {
      const { code, defaults } = fieldsOf(name, struct);
      typeOut.push(
        `export const ${ident(name)} = { kind: 'struct', name: '${name}', fields: ${code}${defaultsCode(defaults)} } as const satisfies StructDef;`,
      );
      return;
    }
    throw new Error(`unknown type ${name}`);
  }

  const requireMessage = (name: string): ApiMessage => {
    const m = index.messages.get(name);
    if (!m) throw new Error(`message ${name} is not in the .api.json files`);
    return m;
  };

  function emitMessage(name: string): void {
    if (emittedMsgs.has(name)) return;
    emittedMsgs.add(name);
    const m = requireMessage(name);
    usedFiles.add(m.file);
    const svc = index.services.get(name);
    const links: string[] = [];
    if (svc) {
      if (svc.stream && svc.stream_msg) {
        emitMessage(svc.reply);
        emitMessage(svc.stream_msg);
        links.push(`reply: ${svc.reply}`, `stream: ${svc.stream_msg}`);
      } else if (svc.stream) {
        emitMessage(svc.reply);
        links.push(`stream: ${svc.reply}`);
      } else if (svc.reply !== 'null') {
        emitMessage(svc.reply);
        links.push(`reply: ${svc.reply}`);
      }
      if (svc.events?.length) {
        for (const e of svc.events) emitMessage(e);
        links.push(`events: [${svc.events.join(', ')}]`);
      }
    }
    const fields = m.fields.filter((f) => f[1] !== '_vl_msg_id');
    const { code, defaults } = fieldsOf(name, fields);
    const status =
      m.options.status === 'in_progress'
        ? `, status: 'in_progress'`
        : 'deprecated' in m.options
          ? `, status: 'deprecated'`
          : '';
    const linkCode = links.length ? `, ${links.join(', ')}` : '';
    msgOut.push(
      `export const ${name} = { kind: 'message', name: '${name}', crc: '${m.crc}', fields: ${code}${defaultsCode(defaults)}${linkCode}${status} } as const satisfies MessageDef;`,
    );
  }

  for (const name of opts.messages) emitMessage(name);

  const header = [
    `// Code generated by vppnet's generator (version ${GENERATOR_VERSION}) from VPP ${opts.vppVersion} .api.json. DO NOT EDIT.`,
    `// Regenerate with \`npm run gen\` after changing src/vpp/messages/selection.json.`,
    `// Sources: ${[...usedFiles].sort().join(', ')}`,
    `/* eslint-disable */`,
    `import type { AliasDef, EnumDef, MessageDef, StructDef, UnionDef } from '../../codec/schema.js';`,
    ``,
    `export const VPP_API_VERSION = '${opts.vppVersion}';`,
    ``,
  ];
  const all = `export const allMessages = [${[...emittedMsgs].sort().join(', ')}] as const;`;
  return [...header, ...typeOut, '', ...msgOut, '', all, ''].join('\n');
}
