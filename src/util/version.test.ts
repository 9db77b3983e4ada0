import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { VPPNET_VERSION, versionLine } from './version.js';

test('the version every program reports is the one package.json releases', () => {
  const pkgPath = fileURLToPath(new URL('../../../package.json', import.meta.url));
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { version: string };
  assert.equal(VPPNET_VERSION, pkg.version);
  assert.match(versionLine('vppnet-agent'), /^vppnet-agent \d+\.\d+\.\d+ \(VPP API \d+\.\d+\)$/);
});
