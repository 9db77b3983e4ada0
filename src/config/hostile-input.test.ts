/**
 * Config files written to hurt: keys that are Object.prototype's, YAML's tags, aliases and nesting,
 * numbers that are not the integers they look like, addresses in the spellings parsers disagree
 * on, control characters in paths, and lists long enough to make the check pass allocate or loop
 * without bound. Each is refused naming the field (or the YAML line), or taken as written.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from './load.js';
import { ConfigError } from './validate.js';
import { problems, type RawConfig } from './testing/raw-config.js';

const BASE = `node:
  name: hv1
  underlay: { interface: memif1/0, address: 2001:db8::1/64, gateway: 2001:db8::2 }
  srv6: { locator: fc00:1::/48 }
vpcs:
  - { name: VPC, id: 10, subnets: [10.0.0.0/24], gateway: 10.0.0.1 }
ports:
  - name: PORT
    vpc: VPC
    mac: 52:54:00:00:00:05
    ip: 10.0.0.5
    attach: { type: vhost-user, socket: /run/vppnet/vhost/vm1.sock }
`;
const file = (vpc = 'vpc-a', port = 'vm1'): string => BASE.replaceAll('VPC', vpc).replaceAll('PORT', port);

/** The problems of a file, as `path: message`; [] when it is valid. */
function fileProblems(text: string): string[] {
  try {
    parseConfig(text);
    return [];
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.problems.map((p) => `${p.path}: ${p.message}`);
  }
}

function assertNothingInherited(): void {
  const inherited: string[] = [];
  for (const k in {}) inherited.push(k);
  assert.deepEqual(inherited, [], 'Object.prototype gained properties');
}

describe('hostile config files', () => {
  it("takes Object.prototype's names as names, refuses __proto__, and pollutes nothing", () => {
    assert.deepEqual(fileProblems(file('constructor', 'prototype')), []);
    assert.deepEqual(fileProblems(file('vpc-a', 'constructor')), []);
    assert.match(fileProblems(file('__proto__'))[0] ?? '', /^vpcs\[0\]\.name: must be 1-32 lowercase/);
    assert.deepEqual(fileProblems(`${file()}__proto__: { polluted: 1 }\n`), [
      '__proto__: unknown field (allowed: node, vpcs, ports, remoteRoutes, services)',
    ]);
    assert.deepEqual(fileProblems(file().replace('  name: hv1', '  name: hv1\n  constructor: 1')), [
      'node.constructor: unknown field (allowed: name, underlay, vhostUser, srv6)',
    ]);
    assertNothingInherited();
  });

  it('refuses a file that is not a mapping, YAML tags, and NUL; takes a BOM', () => {
    for (const text of ['42', 'hello', '- 1\n- 2', 'true'])
      assert.deepEqual(fileProblems(text), [': must be a mapping'], text);
    assert.deepEqual(fileProblems(''), ['node: is required']);
    for (const tag of ['!!js/function "function(){}"', '!!binary aGVsbG8=', '!custom 10', '!!set {a}'])
      assert.match(
        fileProblems(file().replace('id: 10', `id: ${tag}`))[0] ?? '',
        /^line 6: unknown tag/,
        tag,
      );
    assert.match(fileProblems(file().replace('hv1', 'hv1\0'))[0] ?? '', /^line 1: null byte/);
    assert.deepEqual(fileProblems(`\ufeff${file()}`), []);
  });

  // A bomb that expanded would hang or exhaust memory: the timeout makes a hang a failure, not a stalled CI.
  it('refuses alias bombs and deep nesting, naming where', { timeout: 60_000 }, () => {
    let bomb = 'a: &a [x, x, x, x, x, x, x, x, x, x]\n';
    for (let i = 1; i < 9; i++) {
      const [name, prev] = [String.fromCharCode(97 + i), String.fromCharCode(96 + i)];
      bomb += `${name}: &${name} [${Array<string>(10).fill(`*${prev}`).join(', ')}]\n`;
    }
    // 10^9 strings if expanded; as the root's unknown fields and as a list of VPCs.
    assert.ok(
      fileProblems(`${bomb}node: *i\n`).includes(
        'a: unknown field (allowed: node, vpcs, ports, remoteRoutes, services)',
      ),
    );
    const inVpcs = fileProblems(file().replace('vpcs:\n', `x: ${bomb.replaceAll('\n', '\nx: ')}\nvpcs:\n`));
    assert.ok(inVpcs.length > 0);
    const listed = `node: {name: hv1}\nvpcs: &v [${Array<string>(10).fill('[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]').join(', ')}]\nports: [${Array<string>(10).fill('*v').join(', ')}]\n`;
    assert.ok(fileProblems(listed).includes('vpcs[0]: must be a mapping'));
    assert.deepEqual(fileProblems(`node: ${'['.repeat(100_000)}${']'.repeat(100_000)}`), [
      'line 1: nesting exceeded maxDepth (100)',
    ]);
    assert.deepEqual(fileProblems(`node: ${'{a: '.repeat(20_000)}1${'}'.repeat(20_000)}`), [
      'line 1: nesting exceeded maxDepth (100)',
    ]);
  });

  it('takes integers only as integers: no strings, NaN, infinities, -0, fractions or unsafe ones', () => {
    for (const v of ['"10"', '.nan', '.inf', '-.inf', '-0', '1e400', '9007199254740993', '1.5', '2001-01-01'])
      assert.deepEqual(
        fileProblems(file().replace('id: 10', `id: ${v}`)),
        ['vpcs[0].id: must be an integer from 1 to 16777215'],
        v,
      );
    for (const [field, v] of [
      ['table', '1e400'],
      ['table', '4294967295'],
      ['mtu', '-0'],
    ] as const)
      assert.match(
        fileProblems(file().replace('id: 10', `id: 10, ${field}: ${v}`))[0] ?? '',
        new RegExp(`^vpcs\\[0\\]\\.${field}: must be an integer from`),
        `${field}: ${v}`,
      );
    assert.match(
      fileProblems(file().replace('hv1', '!!int 1'))[0] ?? '',
      /^node\.name: must be a Kubernetes node name/,
    );
  });

  it('refuses prefix lengths and addresses parsers read differently, naming the field', () => {
    for (const p of [
      '10.0.0.0/33',
      '10.0.0.0/-1',
      '10.0.0.0/1.5',
      '10.0.0.0/024',
      '010.0.0.0/24',
      ' 10.0.0.0/24',
      '10.0.0.0/24 ',
    ])
      assert.deepEqual(
        fileProblems(file().replace('[10.0.0.0/24]', `[${JSON.stringify(p)}]`)),
        ['vpcs[0].subnets[0]: must be an IPv4 prefix like 10.0.0.0/24'],
        p,
      );
    for (const a of [
      '010.0.0.5',
      '10.0.0.05',
      ' 10.0.0.5',
      '10.0.0.5 ',
      '10.0.0.5\n',
      '\uff110.0.0.5',
      '10.0.0.5%eth0',
    ])
      assert.deepEqual(
        fileProblems(file().replace('ip: 10.0.0.5', `ip: ${JSON.stringify(a)}`)),
        ['ports[0].ip: must be an IPv4 address'],
        a,
      );
    for (const a of ['fe80::2%eth0', ' 2001:db8::2', '2001:db8::2\n'])
      assert.deepEqual(
        fileProblems(file().replace('gateway: 2001:db8::2', `gateway: ${JSON.stringify(a)}`)),
        ['node.underlay.gateway: must be an IPv6 address'],
        a,
      );
    // Embedded IPv4 and uppercase are one address, spelled canonically.
    const c = parseConfig(file().replace('gateway: 2001:db8::2', "gateway: '2001:DB8::0.0.0.2'"));
    assert.equal(c.node.underlay.gateway, '2001:db8::2');
  });

  it('refuses control characters in paths: VPP cuts a socket path at its first NUL', () => {
    for (const socket of [
      '/run/vppnet/vhost/vm1\0.sock',
      '/run/vppnet/vhost/vm1\n.sock',
      '/run/vppnet/vhost/\tvm1.sock',
    ])
      assert.deepEqual(
        problems((cfg) => (cfg.ports[0]!.attach = { type: 'vhost-user', socket })),
        [
          {
            path: 'ports[0].attach.socket',
            message: 'must hold no control character (NUL, newline, tab, …)',
          },
        ],
        JSON.stringify(socket),
      );
    assert.deepEqual(
      problems((cfg) => (cfg.node.vhostUser = { directory: '/run/vppnet\0/vhost' })).map((p) => p.path),
      ['node.vhostUser.directory'],
    );
  });

  it('bounds the lists the check pass compares pairwise or makes VPP routes of, naming the field', () => {
    const ip4 = (i: number, first = 11): string => `${first}.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    const subnets = (n: number): string[] => Array.from({ length: n }, (_, i) => `${ip4(i * 4)}/30`);
    const allowed = (n: number): string[] => Array.from({ length: n }, (_, i) => `${ip4(i, 12)}/32`);
    const withSubnets = (n: number) => (cfg: RawConfig) =>
      (cfg.vpcs[0]!.subnets as string[]).push(...subnets(n));
    const withAllowed = (n: number) => (cfg: RawConfig) => (cfg.ports[0]!.allowedPrefixes = allowed(n));
    assert.deepEqual(problems(withSubnets(255)), []);
    assert.deepEqual(problems(withAllowed(1024)), []);
    // Refused by the schema, before the check pass compares subnets pairwise (20,000 took 24 s).
    assert.deepEqual(problems(withSubnets(20_000)), [
      { path: 'vpcs[0].subnets', message: 'must list at most 256 (20001 listed)' },
    ]);
    assert.deepEqual(problems(withAllowed(1_000_000)), [
      { path: 'ports[0].allowedPrefixes', message: 'must list at most 1024 (1000000 listed)' },
    ]);
  });
});
