/**
 * KeySchema.parse reads an endpoint key in place and leaves every other key to its general
 * parse (split into components, the prefix parsed as written with "/"). The two must agree on
 * every key: here the general parse is spelled out as the schema defines it, and compared with
 * parse() over a table of near misses and over random edits of valid keys.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseIp4Prefix, parseIp6Prefix } from '../net/ip.js';
import { KeySchema, type ParsedKey } from './keys.js';
import { seededRandom, pickWith } from '../util/testing/seeded-random.js';

/** The key schema's definition, as its general parse reads it. */
function byDefinition(prefix: string, key: string): ParsedKey | { readonly error: string } {
  if (!key.startsWith(prefix)) return { error: `is not under the prefix ${prefix}` };
  const [kind, a, b, extra] = key.slice(prefix.length).split('/');
  if (extra !== undefined) return { error: 'has too many path components' };
  if (kind === 'nodes' && a && b === undefined) return { kind: 'node', node: a };
  if (kind === 'vpcs' && a && b === undefined) return { kind: 'vpc', vpc: a };
  if (kind === 'ports' && a && b) return { kind: 'port', node: a, port: b };
  if (kind === 'endpoints' && a && b) {
    const written = b.replace('_', '/');
    const prefix4 = b.includes('_') ? parseIp4Prefix(written) : undefined;
    if (prefix4) return { kind: 'endpoint', vpc: a, prefix: prefix4, family: 4 };
    const prefix6 = b.includes('_') ? parseIp6Prefix(written) : undefined;
    if (!prefix6)
      return { error: 'must end in an IPv4 prefix written a.b.c.d_len or an IPv6 one written x:y::z_len' };
    if (`${prefix6.address}_${prefix6.len}` !== b)
      return {
        error: `must spell the IPv6 prefix canonically (RFC 5952): ${prefix6.address}_${prefix6.len}`,
      };
    return { kind: 'endpoint', vpc: a, prefix: prefix6, family: 6 };
  }
  return {
    error:
      'is not a vppnet key (nodes/NODE, vpcs/VPC, ports/NODE/PORT, endpoints/VPC/a.b.c.d_len or x:y::z_len)',
  };
}

const PREFIX = '/vppnet/v1/';

const NEAR_MISSES = [
  'endpoints/vpc1/10.0.0.0_24',
  'endpoints/vpc1/0.0.0.0_0',
  'endpoints/vpc1/255.255.255.255_32',
  'endpoints/vpc1/10.0.0.0_05',
  'endpoints/vpc1/10.0.0.0_00',
  'endpoints/vpc1/10.0.0.0_0',
  'endpoints/vpc1/10.0.0.0_33',
  'endpoints/vpc1/10.0.0.0_100',
  'endpoints/vpc1/10.0.0.0_',
  'endpoints/vpc1/10.0.0.0',
  'endpoints/vpc1/10.0.0.0/24',
  'endpoints/vpc1/10.0.0.0_24_',
  'endpoints/vpc1/10.0.0.0__24',
  'endpoints/vpc1/10.0.0.0_2a',
  'endpoints/vpc1/010.0.0.0_8',
  'endpoints/vpc1/10.00.0.0_16',
  'endpoints/vpc1/256.0.0.0_8',
  'endpoints/vpc1/1000.0.0.0_8',
  'endpoints/vpc1/10.0.0_24',
  'endpoints/vpc1/10.0.0.0.0_24',
  'endpoints/vpc1/10..0.0_24',
  'endpoints/vpc1/.10.0.0_24',
  'endpoints/vpc1/10.0.0._24',
  'endpoints/vpc1/_24',
  'endpoints/vpc1/',
  'endpoints//10.0.0.0_24',
  'endpoints/vpc1/10.0.0.0_24/x',
  'endpoints/vpc1/x/10.0.0.0_24',
  'endpoints/VPC 1/10.0.0.0_24',
  'endpoints/vpc1/::_0',
  'endpoints/vpc1/::_00',
  'endpoints/vpc1/::1_128',
  'endpoints/vpc1/::1_0128',
  'endpoints/vpc1/::1_129',
  'endpoints/vpc1/::1_',
  'endpoints/vpc1/::1__64',
  'endpoints/vpc1/2001:db8:0:1::5_128',
  'endpoints/vpc1/2001:db8::1:0:0:5_128',
  'endpoints/vpc1/2001:db8:0:0:1::5_128',
  'endpoints/vpc1/2001:0db8::_64',
  'endpoints/vpc1/2001:db8:0:0:0:0:0:0_64',
  'endpoints/vpc1/fe80::1%eth0_64',
  'endpoints/vpc1/::ffff:a00:1_128',
  'endpoints/vpc1/1:2:3:4:5:6:7:8:9_64',
  'endpoints/vpc1/2001:db8::g_64',
  'endpoints/vpc1/2001:db8::_64',
  'endpoints/vpc1/2001:DB8::_64',
  'endpoints/vpc1/::ffff:10.0.0.1_128',
  'endpoints/vpc1/١٠.0.0.0_8',
  'endpoint/vpc1/10.0.0.0_24',
  'endpointsX/vpc1/10.0.0.0_24',
  'nodes/hv1',
  'nodes/hv1/x',
  'vpcs/vpc1',
  'ports/hv1/vm1',
  'ports/hv1/',
];

describe('KeySchema.parse', () => {
  const schema = new KeySchema(PREFIX);

  test('agrees with the general parse on near misses of an IPv4 endpoint key', () => {
    for (const rest of NEAR_MISSES) {
      const key = `${PREFIX}${rest}`;
      assert.deepEqual(schema.parse(key), byDefinition(PREFIX, key), key);
    }
    assert.deepEqual(schema.parse('/other/endpoints/vpc1/10.0.0.0_24'), byDefinition(PREFIX, '/other/x'));
  });

  test('agrees with the general parse on random edits of valid keys', () => {
    // mulberry32, seeded: a failure names its key and repeats.
    const random = seededRandom(0x2545f491);
    const pick = <T>(xs: readonly T[]): T => pickWith(random, xs);
    const alphabet = [...'0123456789._/:afv-', '00', '255', '256', '_3', '/', 'A', '::', 'ffff', '_128'];
    const valid = [
      'endpoints/vpc1/10.0.0.0_24',
      'endpoints/b/192.168.255.128_25',
      'endpoints/v/1.2.3.4_32',
      'endpoints/vpc1/2001:db8:0:1::5_128',
      'endpoints/v6/fd00:a:b::_48',
    ];
    let ipv4 = 0;
    let ipv6 = 0;
    for (let n = 0; n < 20_000; n++) {
      let rest = pick(valid);
      for (let edits = 1 + Math.floor(random() * 3); edits > 0; edits--) {
        const at = Math.floor(random() * (rest.length + 1));
        const op = random();
        if (op < 0.4) rest = rest.slice(0, at) + pick(alphabet) + rest.slice(at + 1);
        else if (op < 0.7) rest = rest.slice(0, at) + pick(alphabet) + rest.slice(at);
        else rest = rest.slice(0, at) + rest.slice(at + 1);
      }
      const key = `${PREFIX}${rest}`;
      const parsed = schema.parse(key);
      assert.deepEqual(parsed, byDefinition(PREFIX, key), key);
      if ('family' in parsed && parsed.family === 4) ipv4++;
      else if ('family' in parsed) ipv6++;
    }
    // The edits keep some keys valid: the in-place reads were compared, not only the general one.
    assert.ok(ipv4 > 1000, `${ipv4} valid IPv4 keys`);
    assert.ok(ipv6 > 1000, `${ipv6} valid IPv6 keys`);
  });

  test("names each key's VPC, whether or not it is the last key's", () => {
    const s = new KeySchema(PREFIX);
    const vpcOf = (key: string): string => (s.parse(key) as { vpc: string }).vpc;
    const a = vpcOf(`${PREFIX}endpoints/${'blue'.repeat(4)}/10.0.0.0_24`);
    const b = vpcOf(`${PREFIX}endpoints/${'red'.repeat(5)}/10.0.0.0_24`);
    assert.equal(a, 'blue'.repeat(4));
    assert.equal(b, 'red'.repeat(5));
    assert.equal(vpcOf(`${PREFIX}endpoints/${'blue'.repeat(4)}/10.0.1.0_24`), a);
    assert.equal(vpcOf(`${PREFIX}endpoints/${'blue'.repeat(4)}/2001:db8::_64`), a);
    assert.equal(s.endpointVpcOf(`${PREFIX}endpoints/${'blue'.repeat(4)}/x`), a);
    assert.equal(s.endpointVpcOf(`${PREFIX}endpoints/${'red'.repeat(5)}/x`), 'red'.repeat(5));
    assert.equal(s.endpointVpcOf(`${PREFIX}endpoints/${'blue'.repeat(3)}/x`), 'blue'.repeat(3));
    assert.equal(s.endpointVpcOf(`${PREFIX}endpoints//x`), undefined);
    assert.equal(s.endpointVpcOf(`${PREFIX}vpcs/blue`), undefined);
  });
});
