/**
 * The message definitions vppnet uses (generated) and lookups over them.
 */
import { nameCrc, type MessageDef } from '../codec/schema.js';
import { allMessages } from './generated/messages.js';

export * as msg from './generated/messages.js';

const byNameCrc = new Map<string, MessageDef>(allMessages.map((m) => [nameCrc(m), m]));
const byName = new Map<string, MessageDef>(allMessages.map((m) => [m.name, m]));

/** Every generated definition. */
export const definitions: readonly MessageDef[] = allMessages;

export function definitionByNameCrc(key: string): MessageDef | undefined {
  return byNameCrc.get(key);
}

export function definitionByName(name: string): MessageDef | undefined {
  return byName.get(name);
}
