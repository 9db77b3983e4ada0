/**
 * Which files of an output directory the renderer owns. deploy/README.md suggests keeping your own
 * files (a kustomization.yaml, a `50-mine.yaml`) beside the rendered ones, so a file name is no
 * proof of ownership: a file is the renderer's only when its first line is the header the renderer
 * writes. Only such files are replaced, reported as stale by --check, or removed when no longer
 * rendered; every other file is left as it is.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The start of every rendered file's first line (render.ts writes it, this file relies on it). */
export const RENDERED_MARKER = '# Rendered by deploy/render from ';

/** The names the renderer gives its files: `NN-name.yaml`. */
const RENDERED_NAME = /^\d\d-[a-z0-9-]+\.yaml$/;

export class OutputDirError extends Error {
  readonly code = 'VPPNET_ERR_DEPLOY_OUTPUT';
  constructor(message: string) {
    super(message);
    this.name = 'OutputDirError';
  }
}

function firstLine(path: string): string {
  const text = readFileSync(path, 'utf8');
  const end = text.indexOf('\n');
  return end < 0 ? text : text.slice(0, end);
}

/** Whether DIR/NAME is a file the renderer wrote (its name and its marker line). */
export function isRenderedFile(dir: string, name: string): boolean {
  if (!RENDERED_NAME.test(name)) return false;
  const path = join(dir, name);
  return statSync(path).isFile() && firstLine(path).startsWith(RENDERED_MARKER);
}

/** The rendered files in a directory, sorted; [] when it does not exist. */
export function renderedFilesIn(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => isRenderedFile(dir, name))
    .sort();
}

/** Differences between rendered files and a directory, one line each; [] when identical. */
export function compareWithDirectory(files: ReadonlyMap<string, string>, dir: string): string[] {
  const diffs: string[] = [];
  for (const [name, text] of files) {
    const path = join(dir, name);
    if (!existsSync(path)) diffs.push(`${path}: missing`);
    else if (readFileSync(path, 'utf8') !== text) diffs.push(`${path}: differs from the rendering`);
  }
  for (const name of renderedFilesIn(dir))
    if (!files.has(name)) diffs.push(`${join(dir, name)}: not rendered any more`);
  return diffs;
}

/**
 * Writes the files and removes the rendered files that are no longer produced. A file of the
 * operator's that has a rendered file's name is not overwritten: the whole write is refused before
 * anything changes, naming it.
 */
export function writeDirectory(files: ReadonlyMap<string, string>, dir: string): void {
  for (const [name, text] of files)
    if (!text.startsWith(RENDERED_MARKER))
      // A rendering without the marker could never be cleaned up again: a renderer bug.
      throw new Error(`deploy/render: ${name} does not start with "${RENDERED_MARKER}"`);
  if (existsSync(dir)) {
    const foreign = [...files.keys()].filter(
      (name) => existsSync(join(dir, name)) && !isRenderedFile(dir, name),
    );
    if (foreign.length > 0)
      throw new OutputDirError(
        `${dir}: ${foreign.join(', ')} ${foreign.length === 1 ? 'is' : 'are'} not a rendered file (no "${RENDERED_MARKER.trim()}" first line): move ${foreign.length === 1 ? 'it' : 'them'} away or render into another directory; nothing was written`,
      );
  }
  mkdirSync(dir, { recursive: true });
  for (const name of renderedFilesIn(dir)) if (!files.has(name)) rmSync(join(dir, name));
  for (const [name, text] of files) writeFileSync(join(dir, name), text);
}
