/**
 * The committed manifests are exactly what deploy/render makes of deploy/values: byte for byte,
 * no file missing, none left over. When this fails, run `npm run deploy:render` and commit.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  MANIFESTS_DIR,
  REPO_ROOT,
  VALUES_DIR,
  compareWithDirectory,
  overlayNames,
  renderOverlay,
} from '../../deploy/render/overlays.js';
import { nodeConfigs } from '../../deploy/render/render.js';
import { parseValues, parseValuesYaml, ValuesError } from '../../deploy/render/values.js';

const RENDER_MAIN = fileURLToPath(new URL('../../deploy/render/main.js', import.meta.url));

describe('deploy/render', () => {
  it('knows the overlays default, fleet and lab, and deploy/manifests holds exactly those', () => {
    const overlays = overlayNames();
    assert.deepEqual(overlays.slice(0, 1), ['default']);
    assert.ok(overlays.includes('lab'));
    assert.ok(overlays.includes('fleet'));
    assert.deepEqual(readdirSync(MANIFESTS_DIR).sort(), [...overlays].sort());
  });

  for (const overlay of overlayNames()) {
    it(`reproduces deploy/manifests/${overlay}/ byte for byte`, () => {
      const files = renderOverlay(overlay);
      assert.deepEqual(compareWithDirectory(files, join(MANIFESTS_DIR, overlay)), []);
      assert.deepEqual(renderOverlay(overlay), files, 'rendering is deterministic');
    });
  }

  it('renders a site overlay with --values/--out, and --check finds drift and stale files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vppnet-render-'));
    try {
      const site = join(dir, 'site.yaml');
      writeFileSync(site, 'namespace: vppnet-site\nimage: { tag: "1.2.3" }\n');
      const out = join(dir, 'out');
      const run = (...args: string[]) =>
        execFileSync(process.execPath, [RENDER_MAIN, ...args], {
          cwd: REPO_ROOT,
          encoding: 'utf8',
          stdio: 'pipe',
        });
      run('--values', site, '--out', out);
      assert.match(
        readFileSync(join(out, '30-agent-daemonset.yaml'), 'utf8'),
        /image: registry\.example\.com\/vppnet\/vppnet:1\.2\.3/,
      );
      assert.match(readFileSync(join(out, '00-namespace.yaml'), 'utf8'), /name: vppnet-site/);
      assert.match(run('--values', site, '--out', out, '--check'), /is up to date/);

      writeFileSync(join(out, '99-stale.yaml'), 'kind: Leftover\n');
      writeFileSync(join(out, '20-agent-config.yaml'), 'edited by hand\n');
      assert.throws(
        () => run('--values', site, '--out', out, '--check'),
        (err: { status: number; stderr: string }) =>
          err.status === 1 &&
          /20-agent-config\.yaml: differs/.test(err.stderr) &&
          /99-stale\.yaml: not rendered any more/.test(err.stderr),
      );
      run('--values', site, '--out', out);
      assert.deepEqual(
        readdirSync(out).includes('99-stale.yaml'),
        false,
        'a re-render removes files it no longer makes',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses bad values with every problem named, and writes nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vppnet-render-'));
    try {
      const site = join(dir, 'bad.yaml');
      writeFileSync(site, 'agent: { listen: "10.1.2.3:9464", logLevel: loud }\nimage: { tagg: x }\n');
      const out = join(dir, 'out');
      assert.throws(
        () =>
          execFileSync(process.execPath, [RENDER_MAIN, '--values', site, '--out', out], {
            cwd: REPO_ROOT,
            stdio: 'pipe',
          }),
        (err: { status: number; stderr: Buffer }) => {
          const text = err.stderr.toString();
          return (
            err.status === 1 &&
            /agent\.listen: the kubelet probes 127\.0\.0\.1/.test(text) &&
            /agent\.logLevel: must be one of/.test(text) &&
            /image\.tagg: unknown field/.test(text)
          );
        },
      );
      assert.deepEqual(readdirSync(dir), ['bad.yaml']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a vhost-user socket outside the run directory the agent mounts', () => {
    const raw = parseValuesYaml(readFileSync(join(VALUES_DIR, 'default.yaml'), 'utf8'), 'default.yaml') as {
      nodes: Record<string, { ports: { attach: { socket?: string } }[] }>;
    };
    const hv1 = Object.values(raw.nodes)[0]!;
    hv1.ports[0]!.attach.socket = '/var/lib/libvirt/qemu/vm1.sock';
    const values = parseValues(raw, 'default.yaml');
    assert.throws(
      () => nodeConfigs(values),
      (err: unknown) =>
        err instanceof ValuesError &&
        err.problems.some(
          (p) =>
            /^nodes\.[a-z0-9-]+\.ports\[0\]\.attach\.socket$/.test(p.path) &&
            /must be under \/run\/vppnet\//.test(p.message),
        ),
    );
  });

  it('reads its values from deploy/values', () => {
    assert.ok(readdirSync(VALUES_DIR).includes('default.yaml'));
  });
});
