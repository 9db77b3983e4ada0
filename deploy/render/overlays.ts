/**
 * The values files on disk: deploy/values/default.yaml is the base with every setting documented;
 * each other deploy/values/NAME.yaml is an overlay merged over it and renders into
 * deploy/manifests/NAME/ (default.yaml alone renders into deploy/manifests/default/).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import type { AlertRules } from './metrics-objects.js';
import { renderedFilesIn } from './output-dir.js';
import { renderFiles, type RenderSource } from './render.js';
import { placeholderProblems } from './placeholders.js';
import { mergeValues, parseValues, parseValuesYaml, ValuesError, type Values } from './values.js';

/** The repository root, from dist/deploy/render/ (Node 20 runs the compiled files only). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const VALUES_DIR = join(REPO_ROOT, 'deploy', 'values');
export const MANIFESTS_DIR = join(REPO_ROOT, 'deploy', 'manifests');
export const BASE_OVERLAY = 'default';
/** The alert rules, rendered as a PrometheusRule with metrics.prometheusRule. */
export const ALERT_RULES_FILE = join(REPO_ROOT, 'deploy', 'monitoring', 'vppnet-alerts.yaml');

/** The render's inputs besides the values: the alert rules, read only when they are rendered. */
function renderSource(values: Values, source: string): RenderSource {
  if (!values.metrics.prometheusRule) return { valuesFiles: source };
  return { valuesFiles: source, alertRules: parse(readFileSync(ALERT_RULES_FILE, 'utf8')) as AlertRules };
}

/** The overlays in deploy/values, `default` first. */
export function overlayNames(valuesDir = VALUES_DIR): string[] {
  const names = readdirSync(valuesDir)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.slice(0, -'.yaml'.length))
    .filter((n) => n !== BASE_OVERLAY)
    .sort();
  return [BASE_OVERLAY, ...names];
}

/** A values file's text; a file it cannot read is a ValuesError naming it, never a stack trace. */
function readValuesFile(path: string, source: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (code ?? String(err));
    throw new ValuesError([{ path: '(file)', message: `cannot read ${path}: ${why}` }], source);
  }
}

/** The base values with an overlay file (none for the base itself), checked. */
export function loadValuesFiles(
  basePath: string,
  overlayPath: string | undefined,
): { values: Values; source: string; overlay: unknown } {
  const rel = (p: string) => relative(REPO_ROOT, p).split('\\').join('/');
  let raw = parseValuesYaml(readValuesFile(basePath, rel(basePath)), rel(basePath));
  let source = rel(basePath);
  let overlay: unknown;
  if (overlayPath !== undefined) {
    overlay = parseValuesYaml(readValuesFile(overlayPath, rel(overlayPath)), rel(overlayPath));
    raw = mergeValues(raw, overlay);
    source = `${rel(basePath)} + ${rel(overlayPath)}`;
  }
  return { values: parseValues(raw, source), source, overlay };
}

/** Renders the base values with an overlay file (none for the base itself). */
export function renderValuesFiles(basePath: string, overlayPath: string | undefined): Map<string, string> {
  const { values, source } = loadValuesFiles(basePath, overlayPath);
  return renderFiles(values, renderSource(values, source));
}

/**
 * A site's own values (`--values FILE`): rendered like an overlay, but refused while a
 * placeholder of the base is left in them (placeholders.ts), each one named.
 */
export function renderSiteValuesFile(basePath: string, sitePath: string): Map<string, string> {
  const { values, source, overlay } = loadValuesFiles(basePath, sitePath);
  const problems = placeholderProblems(values, overlay);
  if (problems.length > 0)
    throw new ValuesError(
      problems.map((p) => ({ ...p, message: `${p.message} (required: the base's value is a placeholder)` })),
      source,
    );
  return renderFiles(values, renderSource(values, source));
}

/** The placeholders a repository overlay renders (its manifests are examples): paths only. */
export function overlayPlaceholders(name: string, valuesDir = VALUES_DIR): string[] {
  const { values, overlay } = loadValuesFiles(...overlayPaths(name, valuesDir));
  return placeholderProblems(values, overlay).map((p) => p.path);
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

export interface ManifestDocument {
  /** `NN-name.yaml` */
  readonly file: string;
  readonly object: Record<string, unknown>;
}

/** Every object in a manifests directory, in file order; a YAML error or a non-object throws. */
export function loadManifestDirectory(dir: string): ManifestDocument[] {
  const out: ManifestDocument[] = [];
  for (const file of renderedFilesIn(dir)) {
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
