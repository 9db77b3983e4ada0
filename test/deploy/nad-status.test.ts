/**
 * The rendered NetworkAttachmentDefinitions let the runtime ask vppnet-cni for STATUS: the built
 * plugin, run as a runtime runs it, gets past its version gate with the rendered config and asks
 * the agent. No agent runs here, so the answer is "plugin not available" (50), the verdict a
 * runtime acts on; a config version from before STATUS gets error 1 instead, which is what the
 * rendered 1.0.0 used to give.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { NAD_KIND } from '../../deploy/render/contract.js';
import { MANIFESTS_DIR, loadManifestDirectory, overlayNames } from '../../deploy/render/overlays.js';
import { CniErrorCode } from '../../src/cni/errors.js';

const PLUGIN_MAIN = fileURLToPath(new URL('../../src/cni/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'vppnet-nad-status-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** STATUS as a runtime sends it, against an agent socket where nothing listens. */
function status(config: Record<string, unknown>): {
  exit: number | null;
  reply: { code?: number; msg?: string };
} {
  const run = spawnSync(process.execPath, [PLUGIN_MAIN], {
    input: JSON.stringify({ ...config, agentSocket: join(dir, 'no-agent.sock') }),
    env: { CNI_COMMAND: 'STATUS', CNI_PATH: dir },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { exit: run.status, reply: JSON.parse(run.stdout) as { code?: number; msg?: string } };
}

describe('rendered service networks answer CNI STATUS', () => {
  for (const overlay of overlayNames()) {
    const nads = loadManifestDirectory(join(MANIFESTS_DIR, overlay)).filter(
      (d) => d.object.kind === NAD_KIND,
    );
    it(`${overlay}: STATUS reaches the agent check, not the version error`, () => {
      assert.ok(nads.length > 0);
      for (const { object } of nads) {
        const config = JSON.parse((object.spec as { config: string }).config) as Record<string, unknown>;
        const { exit, reply } = status(config);
        assert.equal(exit, 1, 'no agent runs here');
        assert.doesNotMatch(reply.msg ?? '', /config version does not allow STATUS/);
        assert.equal(reply.code, CniErrorCode.PLUGIN_NOT_AVAILABLE, JSON.stringify(reply));
      }
    });
  }

  it('a 1.0.0 config gets the version error (what the check above tells apart)', () => {
    const nad = loadManifestDirectory(join(MANIFESTS_DIR, 'default')).find((d) => d.object.kind === NAD_KIND);
    assert.ok(nad);
    const config = JSON.parse((nad.object.spec as { config: string }).config) as Record<string, unknown>;
    const { reply } = status({ ...config, cniVersion: '1.0.0' });
    assert.equal(reply.code, CniErrorCode.INCOMPATIBLE_CNI_VERSION);
    assert.match(reply.msg ?? '', /config version does not allow STATUS/);
  });
});
