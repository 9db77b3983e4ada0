/**
 * The layering check (vppnet/layers in eslint.config.js, run by `npm run lint`) fails on imports
 * that point up a layer or sideways between modules of one layer, and on files of no layer. It
 * lints probe sources at paths inside each module with the repository's own config and table.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { describe, it } from 'node:test';

import { ESLint } from 'eslint';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const eslint = new ESLint({
  cwd: REPO_ROOT,
  // Probes are not files of the TypeScript project: parse them without type information.
  overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
  ruleFilter: ({ ruleId }) => ruleId === 'vppnet/layers',
});

/** The layering messages for `code` as if it were the file at `file` (repository-relative). */
async function layerProblems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(REPO_ROOT, file) });
  assert.ok(result, 'no lint result');
  return result.messages.map((m) => `${m.ruleId ?? 'parse'}: ${m.message}`);
}

void describe('vppnet/layers', () => {
  void it('accepts imports that point down, and within a module', async () => {
    assert.deepEqual(
      await layerProblems(
        'src/services/probe.ts',
        [
          "import type { AgentConfig } from '../config/model.js';",
          "import { keys } from '../dataplane/keys.js';",
          "import { derivedMac } from '../dataplane/names.js';",
          "import { podPortResources } from './pod-port.js';",
          'export const x = [keys, derivedMac, podPortResources] as unknown as AgentConfig;',
        ].join('\n'),
      ),
      [],
    );
    assert.deepEqual(
      await layerProblems(
        'src/attachments/probe.ts',
        "export { desiredServices } from '../services/desired.js';",
      ),
      [],
    );
  });

  void it('fails on an import up a layer, type-only and dynamic ones included', async () => {
    const problems = await layerProblems(
      'src/services/probe.ts',
      [
        "import type { AttachmentManager } from '../attachments/attachment-manager.js';",
        "export const agent = import('../agent/agent.js');",
        'export type M = AttachmentManager;',
      ].join('\n'),
    );
    assert.equal(problems.length, 2, problems.join('\n'));
    assert.match(
      problems[0] ?? '',
      /src\/services\/probe\.ts \(domain\) imports src\/attachments\/attachment-manager\.ts \(attachments\)/,
    );
    assert.match(problems[1] ?? '', /\(domain\) imports src\/agent\/agent\.ts \(agent\)/);
    const codec = await layerProblems(
      'src/vpp/codec/probe.ts',
      "export { VppClient } from '../client/vpp-client.js';",
    );
    assert.equal(codec.length, 1, codec.join('\n'));
    assert.match(codec[0] ?? '', /\(codec\) imports src\/vpp\/client\/vpp-client\.ts \(client\)/);
  });

  void it('fails on an import between two modules of one layer', async () => {
    const problems = await layerProblems('src/services/probe.ts', "export * from '../srv6/overlay.js';");
    assert.equal(problems.length, 1, problems.join('\n'));
    assert.match(problems[0] ?? '', /separate modules of the domain layer/);
  });

  void it('keeps vppnet-cni to the agent API and the helpers', async () => {
    assert.deepEqual(
      await layerProblems('src/cni/probe.ts', "export * from '../agent-api/protocol.js';"),
      [],
    );
    const problems = await layerProblems('src/cni/probe.ts', "export * from '../services/runtime.js';");
    assert.equal(problems.length, 1, problems.join('\n'));
    assert.match(problems[0] ?? '', /may import only src\/agent-api, src\/net, src\/util/);
  });

  void it('fails on a file of no layer, and on src importing test support', async () => {
    const stray = await layerProblems('src/stray/probe.ts', 'export const x = 1;');
    assert.equal(stray.length, 1, stray.join('\n'));
    assert.match(stray[0] ?? '', /src\/stray\/probe\.ts belongs to no module/);
    const support = await layerProblems(
      'src/agent/probe.ts',
      "export * from '../../test/support/vpp-target.js';",
    );
    assert.equal(support.length, 1, support.join('\n'));
    assert.match(support[0] ?? '', /never imports test\//);
  });

  void it('leaves unit tests and code outside src alone', async () => {
    const upward = "export * from '../agent/agent.js';";
    assert.deepEqual(await layerProblems('src/services/probe.test.ts', upward), []);
    assert.deepEqual(
      await layerProblems('bench/probe/main.ts', "export * from '../../src/agent/agent.js';"),
      [],
    );
  });
});
