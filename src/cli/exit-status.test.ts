/**
 * The exit statuses the README documents (0: done, or the help asked for; 1: a failure; 2: a usage
 * error), as the real built CLI exits with them in its own process.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { versionLine } from '../util/version.js';

const CLI = fileURLToPath(new URL('./vppnet.js', import.meta.url));

async function spawnCli(
  argv: string[],
  extraEnv: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VPPNET_')));
  const child = spawn(process.execPath, [CLI, ...argv], {
    env: { ...env, ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

describe('vppnet exit statuses', () => {
  it('-h is --help: the usage on stdout, status 0', async () => {
    for (const flag of ['-h', '--help', 'help']) {
      const r = await spawnCli([flag]);
      assert.equal(r.code, 0, flag);
      assert.match(r.stdout, /^usage:\n {2}vppnet plan /, flag);
      assert.equal(r.stderr, '', flag);
    }
  });

  it('names an unknown command, then the usage, on stderr, status 2', async () => {
    const r = await spawnCli(['bogus']);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^vppnet: unknown command "bogus"\nusage:\n {2}vppnet plan /);
  });

  it('version, --version and -V print the version line', async () => {
    for (const arg of ['version', '--version', '-V']) {
      const r = await spawnCli([arg]);
      assert.deepEqual(r, { code: 0, stdout: `${versionLine('vppnet')}\n`, stderr: '' }, arg);
    }
  });

  it('config-reference and version answer --help with their usage, and refuse other arguments (status 2)', async () => {
    for (const command of ['config-reference', 'version', '--version', '-V']) {
      const help = await spawnCli([command, '--help']);
      assert.equal(help.code, 0, command);
      assert.match(help.stdout, /^usage: vppnet (config-reference|version)/, command);
      assert.equal(help.stderr, '', command);
      const bogus = await spawnCli([command, '--bogus']);
      assert.equal(bogus.code, 2, command);
      assert.equal(bogus.stdout, '', command);
      assert.match(bogus.stderr, /takes no arguments, got "--bogus"\nusage: vppnet /, command);
    }
    const reference = await spawnCli(['config-reference']);
    assert.equal(reference.code, 0);
    assert.match(reference.stdout, /^\| field \| type \| required \| meaning \|/);
  });

  it('lists every command in its usage, config-reference included', async () => {
    const r = await spawnCli(['--help']);
    for (const command of ['plan', 'status', 'datastore', 'config-reference', 'install-cni', 'version'])
      assert.match(r.stdout, new RegExp(`^ {2}vppnet ${command}`, 'm'), command);
  });

  it('install-cni without arguments is a usage error (status 2, usage on stderr); --help is status 0', async () => {
    const bare = await spawnCli(['install-cni']);
    assert.equal(bare.code, 2);
    assert.equal(bare.stdout, '');
    assert.match(
      bare.stderr,
      /--source and --dest are required\nusage:\n {2}vppnet install-cni --source FILE/,
    );
    const help = await spawnCli(['install-cni', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^usage:\n {2}vppnet install-cni --source FILE/);
    assert.equal(help.stderr, '');
  });

  it('plans the file VPPNET_CONFIG names, and fails naming it and the variable when it is missing', async () => {
    const missing = await spawnCli(['plan'], { VPPNET_CONFIG: '/nonexistent/vppnet.yaml' });
    assert.equal(missing.code, 1);
    assert.equal(missing.stdout, '', 'not the bundled example instead');
    assert.match(
      missing.stderr,
      /^vppnet: invalid configuration in \/nonexistent\/vppnet\.yaml \(named by env VPPNET_CONFIG\):\n.*cannot read \/nonexistent\/vppnet\.yaml: ENOENT/,
    );
    assert.doesNotMatch(missing.stderr, /\n\s+at /, 'no stack trace');
    // Neither --config nor VPPNET_CONFIG: the bundled example (README's `npm run plan`).
    const example = await spawnCli(['plan']);
    assert.equal(example.code, 0);
    assert.match(example.stdout, /examples\/hypervisor-1\.yaml against a fresh VPP/);
  });
});
