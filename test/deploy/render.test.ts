/**
 * The committed manifests are exactly what deploy/render makes of deploy/values: byte for byte,
 * no file missing, none left over. When this fails, run `npm run deploy:render` and commit.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import {
  MANIFESTS_DIR,
  REPO_ROOT,
  VALUES_DIR,
  overlayNames,
  renderOverlay,
} from '../../deploy/render/overlays.js';
import { compareWithDirectory, RENDERED_MARKER } from '../../deploy/render/output-dir.js';
import { nodeConfigs } from '../../deploy/render/render.js';
import { parseValues, parseValuesYaml, ValuesError } from '../../deploy/render/values.js';

const RENDER_MAIN = fileURLToPath(new URL('../../deploy/render/main.js', import.meta.url));

/** A site's values: its own image and the base's example hypervisor as its own, plus `extra`. */
function siteValues(extra: string): string {
  const base = parseValuesYaml(readFileSync(join(VALUES_DIR, 'default.yaml'), 'utf8'), 'default.yaml') as {
    nodes: unknown;
  };
  return `${extra}${stringify({
    image: { repository: 'registry.site.test/vppnet/vppnet', tag: '1.2.3' },
    nodes: base.nodes,
  })}`;
}

function run(...args: string[]): string {
  return execFileSync(process.execPath, [RENDER_MAIN, ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    stdio: 'pipe',
  });
}

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
      writeFileSync(site, siteValues('namespace: vppnet-site\n'));
      const out = join(dir, 'out');
      run('--values', site, '--out', out);
      assert.match(
        readFileSync(join(out, '30-agent-daemonset.yaml'), 'utf8'),
        /image: registry\.site\.test\/vppnet\/vppnet:1\.2\.3/,
      );
      assert.match(readFileSync(join(out, '00-namespace.yaml'), 'utf8'), /name: vppnet-site/);
      assert.match(run('--values', site, '--out', out, '--check'), /is up to date/);

      writeFileSync(join(out, '99-stale.yaml'), `${RENDERED_MARKER}old.yaml\nkind: Leftover\n`);
      writeFileSync(join(out, '20-agent-config.yaml'), `${RENDERED_MARKER}site.yaml, edited by hand\n`);
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

  it("keeps the operator's own files in --out and removes only what it rendered before", () => {
    const dir = mkdtempSync(join(tmpdir(), 'vppnet-render-'));
    try {
      const out = join(dir, 'out');
      const site = join(dir, 'site.yaml');
      // First with the examples, then without: 50-service-examples.yaml is rendered, then stale.
      writeFileSync(
        site,
        siteValues(
          'examples: { enabled: true, dhcp: { image: dhcp:1 }, dnsProxy: { image: dns:1 }, metadata: { image: md:1 } }\n',
        ),
      );
      run('--values', site, '--out', out);
      assert.ok(readdirSync(out).includes('50-service-examples.yaml'));
      const mine = '# my own objects, beside the rendered ones\nkind: ConfigMap\n';
      const kustomization = 'resources: [00-namespace.yaml, 50-mine.yaml]\n';
      writeFileSync(join(out, '50-mine.yaml'), mine);
      writeFileSync(join(out, 'kustomization.yaml'), kustomization);

      writeFileSync(site, siteValues(''));
      run('--values', site, '--out', out);
      const files = readdirSync(out);
      assert.equal(files.includes('50-service-examples.yaml'), false, 'the stale rendered file is removed');
      assert.equal(readFileSync(join(out, '50-mine.yaml'), 'utf8'), mine);
      assert.equal(readFileSync(join(out, 'kustomization.yaml'), 'utf8'), kustomization);
      assert.match(run('--values', site, '--out', out, '--check'), /is up to date/, 'own files are no drift');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses to overwrite an operator's file that has a rendered file's name, and writes nothing", () => {
    const dir = mkdtempSync(join(tmpdir(), 'vppnet-render-'));
    try {
      const out = join(dir, 'out');
      const site = join(dir, 'site.yaml');
      writeFileSync(site, siteValues(''));
      mkdirSync(out);
      writeFileSync(join(out, '30-agent-daemonset.yaml'), 'kind: DaemonSet # mine\n');
      assert.throws(
        () => run('--values', site, '--out', out),
        (err: { status: number; stderr: string }) =>
          err.status === 1 && /30-agent-daemonset\.yaml is not a rendered file/.test(err.stderr),
      );
      assert.deepEqual(readdirSync(out), ['30-agent-daemonset.yaml']);
      assert.equal(readFileSync(join(out, '30-agent-daemonset.yaml'), 'utf8'), 'kind: DaemonSet # mine\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--values of a missing file: one line naming it, exit 2, no stack trace', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vppnet-render-'));
    try {
      const missing = join(dir, 'no-such-values.yaml');
      assert.throws(
        () => run('--values', missing, '--out', join(dir, 'out')),
        (err: { status: number; stderr: string }) =>
          err.status === 2 &&
          err.stderr === `deploy:render: --values ${missing}: no such file\n` &&
          !/\bat /.test(err.stderr),
      );
      assert.deepEqual(readdirSync(dir), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses an empty values file: the base's placeholders are named, nothing is rendered", () => {
    const dir = mkdtempSync(join(tmpdir(), 'vppnet-render-'));
    try {
      const site = join(dir, 'empty.yaml');
      writeFileSync(site, '');
      assert.throws(
        () => run('--values', site, '--out', join(dir, 'out')),
        (err: { status: number; stderr: string }) =>
          err.status === 1 &&
          /image\.repository: is the placeholder registry\.example\.com\/vppnet\/vppnet/.test(err.stderr) &&
          /nodes: is missing: the base's hv1 is a placeholder/.test(err.stderr) &&
          !/\bat /.test(err.stderr),
      );
      assert.deepEqual(readdirSync(dir), ['empty.yaml']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses placeholders a site left in: etcd endpoints and example images', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vppnet-render-'));
    try {
      const site = join(dir, 'fleet-copy.yaml');
      // A copy of the fleet overlay with only the image changed.
      writeFileSync(
        site,
        `${readFileSync(join(VALUES_DIR, 'fleet.yaml'), 'utf8')}\nimage: { repository: registry.site.test/vppnet/vppnet }\nexamples: { enabled: true }\n`,
      );
      assert.throws(
        () => run('--values', site, '--out', join(dir, 'out')),
        (err: { status: number; stderr: string }) =>
          err.status === 1 &&
          /datastore\.etcd\.endpoints\[0\]: is the placeholder https:\/\/etcd-0\.etcd\.example\.com:2379/.test(
            err.stderr,
          ) &&
          /examples\.dhcp\.image: is the placeholder/.test(err.stderr) &&
          !/image\.repository/.test(err.stderr),
      );
      assert.deepEqual(readdirSync(dir), ['fleet-copy.yaml']);
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

  it('refuses a vhost-user socket directory outside the run directory the agent mounts', () => {
    const raw = parseValuesYaml(readFileSync(join(VALUES_DIR, 'default.yaml'), 'utf8'), 'default.yaml') as {
      nodes: Record<
        string,
        { node: { vhostUser?: Record<string, unknown> }; ports: { attach: { socket?: string } }[] }
      >;
    };
    const hv1 = Object.values(raw.nodes)[0]!;
    hv1.node.vhostUser = { ...hv1.node.vhostUser, directory: '/var/lib/libvirt/qemu' };
    hv1.ports[0]!.attach.socket = '/var/lib/libvirt/qemu/vm1.sock';
    const values = parseValues(raw, 'default.yaml');
    assert.throws(
      () => nodeConfigs(values),
      (err: unknown) =>
        err instanceof ValuesError &&
        err.problems.some(
          (p) =>
            /^nodes\.[a-z0-9-]+\.vhostUser\.directory$/.test(p.path) &&
            /must be under \/run\/vppnet\//.test(p.message),
        ),
    );
    // A socket outside the node's directory is the agent's own refusal, named by the same path.
    hv1.node.vhostUser = {};
    assert.throws(
      () => nodeConfigs(parseValues(raw, 'default.yaml')),
      (err: unknown) =>
        err instanceof ValuesError &&
        err.problems.some(
          (p) =>
            /\.ports\[0\]\.attach\.socket$/.test(p.path) &&
            /outside the node's vhost-user socket directory/.test(p.message),
        ),
    );
  });

  it('reads its values from deploy/values', () => {
    assert.ok(readdirSync(VALUES_DIR).includes('default.yaml'));
  });
});
