/**
 * Reads and validates the agent's YAML file. A file that does not parse or validate raises
 * ConfigError; the caller keeps its last good state.
 *
 * js-yaml, not `yaml`: a node's file may hold 100k remote routes (6 MB), and `yaml` builds a
 * token tree and a document tree before plain values (~500 MB and ~7 s for that file), where
 * js-yaml builds the values directly (~60 MB, ~1 s). Both read YAML 1.2's core schema; duplicate
 * keys are errors in both.
 */
import { readFile } from 'node:fs/promises';
import { CORE_SCHEMA, load, YAMLException } from 'js-yaml';
import type { AgentConfig } from './model.js';
import { ConfigError, validateConfig } from './validate.js';

export async function loadConfigFile(path: string): Promise<AgentConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new ConfigError(
      [{ path: '(file)', message: `cannot read ${path}: ${(err as Error).message}` }],
      path,
    );
  }
  return parseConfig(text, path);
}

export function parseConfig(text: string, source?: string): AgentConfig {
  let raw: unknown;
  try {
    raw = load(text, { schema: CORE_SCHEMA });
  } catch (err) {
    const where = err instanceof YAMLException && err.mark ? `line ${err.mark.line + 1}` : '(yaml)';
    const message = err instanceof YAMLException ? err.reason : (err as Error).message.split('\n')[0];
    throw new ConfigError([{ path: where, message: message || 'YAML syntax error' }], source);
  }
  return validateConfig(raw, source);
}
