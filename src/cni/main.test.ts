/** The vppnet-cni executable's own --version, apart from the CNI spec's VERSION command. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';
import { versionLine } from '../util/version.js';

const MAIN = fileURLToPath(new URL('./main.js', import.meta.url));

async function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, [MAIN, ...args], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  child.stdin.end('');
  let stdout = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout };
}

it('prints the version line for --version, and still answers CNI_COMMAND=VERSION as the spec says', async () => {
  const bare = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CNI_')));
  assert.deepEqual(await run(['--version'], bare), { code: 0, stdout: `${versionLine('vppnet-cni')}\n` });
  const spec = await run(['--version'], { ...bare, CNI_COMMAND: 'VERSION' });
  assert.equal(spec.code, 0);
  assert.ok(Array.isArray((JSON.parse(spec.stdout) as { supportedVersions: unknown }).supportedVersions));
});
