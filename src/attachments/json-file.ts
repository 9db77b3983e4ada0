/**
 * The agent's small state files: JSON written so that a crash at any moment leaves the old or the
 * new content, never a torn mix (temporary file beside it, fsync, rename, fsync the directory).
 */
import { readFile } from 'node:fs/promises';
import { removeFileDurably, writeFileAtomic } from '../util/atomic-file.js';

export { removeFileDurably };

/** State files are the agent's alone: 0600 in a 0700 directory. */
export async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600, dirMode: 0o700 });
}

/** The parsed content, or undefined when the file does not exist. */
export async function readJsonFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  return JSON.parse(text) as unknown;
}
