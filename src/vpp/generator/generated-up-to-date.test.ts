/**
 * The committed message definitions are exactly what `npm run gen` makes from the VPP API JSON:
 * a hand edit of src/vpp/messages/generated, or a selection.json change without regenerating,
 * fails here. The generator runs as `npm run gen` runs it, writing into a temp dir.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';

/** The repository's root: this file runs as dist/src/vpp/generator/*.test.js. */
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const GENERATOR = path.join(ROOT, 'dist/src/vpp/generator/main.js');
const COMMITTED = path.join(ROOT, 'src/vpp/messages/generated/messages.ts');

describe('generated message definitions', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-gen-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('are what the generator makes from ../shared/vpp-api/26.06', async () => {
    const out = path.join(dir, 'messages.ts');
    // The generator's defaults (api dir, VPP version, selection) are what `npm run gen` uses.
    await promisify(execFile)(process.execPath, [GENERATOR, '--out', out], { cwd: ROOT });
    const [fresh, committed] = await Promise.all([readFile(out, 'utf8'), readFile(COMMITTED, 'utf8')]);
    if (fresh === committed) return;
    const freshLines = fresh.split('\n');
    const committedLines = committed.split('\n');
    const line = freshLines.findIndex((l, i) => l !== committedLines[i]);
    const at = line === -1 ? freshLines.length : line;
    assert.fail(
      `${path.relative(ROOT, COMMITTED)} differs from the generator's output at line ${at + 1}:\n` +
        `  committed: ${committedLines[at] ?? '(end of file)'}\n` +
        `  generated: ${freshLines[at] ?? '(end of file)'}\n` +
        'run `npm run build && npm run gen` and commit the result',
    );
  });
});
