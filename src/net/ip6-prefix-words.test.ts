import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalIp6, ip6HasHostBits, ip6InsideWhich, ip6PrefixBytes, parseIp6Prefix } from './ip.js';
import { isIp6Literal } from './ip-literal.js';
import { Ip6PrefixWords } from './ip6-prefix-words.js';
import { isIp6Network } from './network-prefix.js';
import { seededRandom } from '../util/testing/seeded-random.js';

/** parseIp6Prefix as it was written before it read in place: the rule the new reading keeps. */
function byRegex(s: string): { address: string; len: number } | undefined {
  const m = /^([0-9a-fA-F:.]+)\/(\d{1,3})$/.exec(s);
  const address = m?.[1];
  if (address === undefined || !address.includes(':') || !isIp6Literal(address)) return undefined;
  const len = Number(m?.[2]);
  return len > 128 ? undefined : { address: canonicalIp6(address), len };
}

const WRITTEN = [
  '2001:db8::/64',
  '2001:DB8:1000:0:5054:ff:fe00:0/128',
  '::/0',
  '::/000',
  '::/064',
  '::/0128',
  '::/129',
  '::/128',
  'fe80::1/10',
  '::ffff:10.0.0.1/96',
  '1:2:3:4:5:6:1.2.3.4/128',
  '1:2:3:4:5:6:7:8/128',
  '1:2:3:4:5:6:7:8:9/128',
  '2001:db8::',
  '2001:db8::/',
  '/64',
  '2001:db8::/6a',
  '2001:db8::/64/64',
  '2001:db8::/ 64',
  ' 2001:db8::/64',
  '2001:db8::/64 ',
  '2001:db8::%eth0/64',
  '10.0.0.0/24',
  'abcd/16',
  '1::2::3/64',
  ':::/64',
  '::1.2.3.04/128',
  '2001:db8::/+64',
  '2001:db8::/-1',
  '2001:db8::/1e1',
];

describe('Ip6PrefixWords: an IPv6 prefix read once, as numbers', () => {
  it('reads what parseIp6Prefix read with its regular expression, no more, no less', () => {
    const random = seededRandom(0x2f6b9e11);
    const hex = (): string => Math.floor(random() * 0x10000).toString(16);
    const generated = Array.from({ length: 2000 }, () => {
      const groups = Array.from({ length: 8 }, () => (random() < 0.3 ? '0' : hex()));
      const text = random() < 0.5 ? canonicalIp6(groups.join(':')) : groups.join(':');
      return `${text}/${Math.floor(random() * 140)}`;
    });
    for (const s of [...WRITTEN, ...generated]) {
      const expected = byRegex(s);
      const words = Ip6PrefixWords.read(s);
      assert.deepEqual(words && { address: words.address, len: words.len }, expected, s);
      assert.deepEqual(parseIp6Prefix(s), expected, s);
      assert.equal(isIp6Network(s), expected !== undefined && !ip6HasHostBits(expected), s);
    }
  });

  it('keys a prefix the same whatever its spelling, and apart from any other', () => {
    const key = (s: string): string | undefined => Ip6PrefixWords.read(s)?.key;
    assert.equal(key('2001:DB8:0::5054:ff:fe00:1/128'), key('2001:db8::5054:ff:fe00:1/128'));
    assert.equal(key('::ffff:10.0.0.1/128'), key('::ffff:a00:1/128'));
    assert.notEqual(key('2001:db8::/64'), key('2001:db8::/65'));
    assert.notEqual(key('2001:db8::/64'), key('2001:db9::/64'));
    assert.notEqual(key('8000::/1'), key('::/1'), 'the sign bit of the first word');
    assert.equal(key('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128')?.length, 9);
  });

  it('gives ip.ts its address as bytes, without its text', () => {
    const words = Ip6PrefixWords.read('fea0:ffff:8000::1/10');
    assert.ok(words);
    const bytes = new Uint8Array(16);
    words.writeAddress(bytes, 0);
    assert.deepEqual([...bytes], [0xfe, 0xa0, 0xff, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    assert.equal(ip6HasHostBits(words), true);
    const inside = Ip6PrefixWords.read('fc00:1:0:1::/64');
    const ranges = [
      ip6PrefixBytes({ address: 'fe80::', len: 10 }),
      ip6PrefixBytes({ address: 'fc00:1::', len: 48 }),
    ];
    assert.ok(inside);
    assert.equal(ip6InsideWhich(inside, ranges), 1);
    assert.equal(ip6InsideWhich(words, ranges), 0);
  });
});
