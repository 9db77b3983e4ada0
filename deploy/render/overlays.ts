/**
 * The values files on disk: deploy/values/default.yaml is the base with every setting documented;
 * each other deploy/values/NAME.yaml is an overlay merged over it and renders into
 * deploy/manifests/NAME/ (default.yaml alone renders into deploy/manifests/default/).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { renderFiles } from './render.js';
import { mergeValues, parseValues, parseValuesYaml, type Values } from './values.js';

/** The repository root, from dist/deploy/render/ (Node 20 runs the compiled files only). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const VALUES_DIR = join(REPO_ROOT, 'deploy', 'values');
export const MANIFESTS_DIR = join(REPO_ROOT, 'deploy', 'manifests');
export const BASE_OVERLAY = 'default';

/** Files the renderer owns in an output directory: `NN-name.yaml`. */
const RENDERED_FILE = /^\d\d-[a-z0-9-]+\.yaml$/;

/** The overlays in deploy/values, `default` first. */
export function overlayNames(valuesDir = VALUES_DIR): string[] {
  const names = readdirSync(valuesDir)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.slice(0, -'.yaml'.length))
    .filter((n) => n !== BASE_OVERLAY)
    .sort();
  return [BASE_OVERLAY, ...names];
}

/** The base values with an overlay file (none for the base itself), checked. */
export function loadValuesFiles(
  basePath: string,
  overlayPath: string | undefined,
): { values: Values; source: string } {
  const rel = (p: string) => relative(REPO_ROOT, p).split('\\').join('/');
  let raw = parseValuesYaml(readFileSync(basePath, 'utf8'), rel(basePath));
  let source = rel(basePath);
  if (overlayPath !== undefined) {
    raw = mergeValues(raw, parseValuesYaml(readFileSync(overlayPath, 'utf8'), rel(overlayPath)));
    source = `${rel(basePath)} + ${rel(overlayPath)}`;
  }
  return { values: parseValues(raw, source), source };
}

/** Renders the base values with an overlay file (none for the base itself). */
export function renderValuesFiles(basePath: string, overlayPath: string | undefined): Map<string, string> {
  const { values, source } = loadValuesFiles(basePath, overlayPath);
  return renderFiles(values, { valuesFiles: source });
}

function overlayPaths(name: string, valuesDir: string): [string, string | undefined] {
  const base = join(valuesDir, `${BASE_OVERLAY}.yaml`);
  return [base, name === BASE_OVERLAY ? undefined : join(valuesDir, `${name}.yaml`)];
}

/** An overlay's checked values (what test/deploy checks its committed manifests against). */
export function overlayValues(name: string, valuesDir = VALUES_DIR): Values {
  return loadValuesFiles(...overlayPaths(name, valuesDir)).values;
}

export function renderOverlay(name: string, valuesDir = VALUES_DIR): Map<string, string> {
  return renderValuesFiles(...overlayPaths(name, valuesDir));
}

/** Differences between rendered files and a directory, one line each; [] when identical. */
export function compareWithDirectory(files: ReadonlyMap<string, string>, dir: string): string[] {
  const diffs: string[] = [];
  const present = existsSync(dir) ? readdirSync(dir).filter((f) => RENDERED_FILE.test(f)) : [];
  for (const [name, text] of files) {
    const path = join(dir, name);
    if (!existsSync(path)) diffs.push(`${path}: missing`);
    else if (readFileSync(path, 'utf8') !== text) diffs.push(`${path}: differs from the rendering`);
  }
  for (const name of present) if (!files.has(name)) diffs.push(`${join(dir, name)}: not rendered any more`);
  return diffs;
}

/** Writes the files and removes rendered files that are no longer produced. */
export function writeDirectory(files: ReadonlyMap<string, string>, dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const name of readdirSync(dir))
    if (RENDERED_FILE.test(name) && !files.has(name)) rmSync(join(dir, name));
  for (const [name, text] of files) writeFileSync(join(dir, name), text);
}

export interface ManifestDocument {
  /** `NN-name.yaml` */
  readonly file: string;
  readonly object: Record<string, unknown>;
}

/** Every object in a manifests directory, in file order; a YAML error or a non-object throws. */
export function loadManifestDirectory(dir: string): ManifestDocument[] {
  const out: ManifestDocument[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => RENDERED_FILE.test(f))
    .sort()) {
    for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'), { uniqueKeys: true })) {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
      const object: unknown = doc.toJS();
      if (object === null) continue;
      if (typeof object !== 'object' || Array.isArray(object))
        throw new Error(`${file}: a document is not a mapping`);
      out.push({ file, object: object as Record<string, unknown> });
    }
  }
  return out;
}
