#!/usr/bin/env node
/**
 * vppnet's message generator: reads .api.json files and writes the definitions of the messages
 * listed in src/vpp/messages/selection.json. Usage:
 *   npm run gen -- [--api-dir DIR] [--vpp-version X] [--check]
 * --check exits 1 when the committed output differs (CI guards against hand edits).
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadApiIndex } from './api-json.js';
import { emitDefinitions } from './emit.js';

const { values } = parseArgs({
  options: {
    'api-dir': { type: 'string', default: '../shared/vpp-api/26.06' },
    'vpp-version': { type: 'string', default: '26.06' },
    selection: { type: 'string', default: 'src/vpp/messages/selection.json' },
    out: { type: 'string', default: 'src/vpp/messages/generated/messages.ts' },
    check: { type: 'boolean', default: false },
  },
});

const selection = JSON.parse(await readFile(values.selection, 'utf8')) as { messages: string[] };
const index = await loadApiIndex(path.resolve(values['api-dir']));
const source = emitDefinitions(index, { vppVersion: values['vpp-version'], messages: selection.messages });
if (values.check) {
  const current = await readFile(values.out, 'utf8').catch(() => '');
  if (current !== source) {
    process.stderr.write(`${values.out} is out of date: run npm run gen\n`);
    process.exit(1);
  }
} else {
  await writeFile(values.out, source);
  process.stdout.write(`wrote ${values.out}\n`);
}
