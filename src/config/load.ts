/**
 * Reads and validates the agent's YAML file. A file that does not parse or validate raises
 * ConfigError; the caller keeps its last good state.
 */
import { readFile } from 'node:fs/promises';
import { parse, YAMLParseError } from 'yaml';
import type { AgentConfig } from './model.js';
import { ConfigError, validateConfig } from './validate.js';

export async function loadConfigFile(path: string): Promise<AgentConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new ConfigError([{ path: '(file)', message: `cannot read ${path}: ${(err as Error).message}` }], path);
  }
  return parseConfig(text, path);
}

export function parseConfig(text: string, source?: string): AgentConfig {
  let raw: unknown;
  try {
    raw = parse(text, { prettyErrors: true, uniqueKeys: true });
  } catch (err) {
    const where = err instanceof YAMLParseError && err.linePos ? `line ${err.linePos[0].line}` : '(yaml)';
    throw new ConfigError([{ path: where, message: (err as Error).message.split('\n')[0] ?? 'YAML syntax error' }], source);
  }
  return validateConfig(raw, source);
}
