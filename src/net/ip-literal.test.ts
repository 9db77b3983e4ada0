import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { isIP } from 'node:net';
import { describe, it } from 'node:test';

import { writeIp4, writeIp6 } from '../vpp/codec/text-format.js';
import { VppError } from '../vpp/errors.js';
import {
  formatIp4,
  formatIp6,
  ipLiteralFamily,
  isIp4Literal,
  isIp6Literal,
  writeIp4Literal,
  writeIp6Literal,
} from './ip-literal.js';

/** node:net is the reference; zones (`%eth0`) are out of scope on purpose. */
function agrees(s: string): void {
  assert.equal(ipLiteralFamily(s), isIP(s), JSON.stringify(s));
}

void describe('ipLiteralFamily', () => {
  void it('answers as node:net for written cases', () => {
    for (const s of [
      '0.0.0.0',
      '255.255.255.255',
      '169.254.169.103',
      '1.2.3',
      '1.2.3.4.5',
      '256.1.1.1',
      '01.2.3.4',
      '1.2.3.04',
      '1..3.4',
      '',
      '.',
      ' 1.2.3.4',
      '1.2.3.4 ',
      '1.2.3.-1',
      '1e1.2.3.4',
      '0x1.2.3.4',
      '::',
      '::1',
      '1::',
      'fe80::1',
      'FE80::A:b',
      '2001:db8::',
      '2001:0db8:0000:0000:0000:ff00:0042:8329',
      '1:2:3:4:5:6:7:8',
      '1:2:3:4:5:6:7:8:9',
      '1:2:3:4:5:6:7',
      '1:2:3:4:5:6:7::',
      '::2:3:4:5:6:7:8',
      '1::2::3',
      ':::',
      ':1::',
      '1::2:',
      '::ffff:1.2.3.4',
      '1:2:3:4:5:6:1.2.3.4',
      '1:2:3:4:5:6:7:1.2.3.4',
      '1.2.3.4::',
      '::1.2.3',
      '::1.2.3.4:5',
      '12345::',
      'g::',
      '::\u0010',
      '1:\u00102::',
      'fc00:1:ff::/64',
    ]) {
      agrees(s);
    }
  });

  void it('answers as node:net for random strings over the characters of addresses', () => {
    const alphabet = '0123456789abcdefABCDEFg:.';
    for (let n = 0; n < 50_000; n++) {
      const length = randomInt(0, 20);
      let s = '';
      for (let i = 0; i < length; i++) s += alphabet[randomInt(0, alphabet.length)];
      agrees(s);
    }
  });

  void it('answers as node:net for random valid addresses, printed in every way', () => {
    for (let n = 0; n < 5_000; n++) {
      const groups = Array.from({ length: 8 }, () => (randomInt(0, 4) === 0 ? 0 : randomInt(0, 0x10000)));
      const full = groups.map((g) => g.toString(16)).join(':');
      agrees(full);
      const start = randomInt(0, 8);
      const end = randomInt(start, 9);
      const head = groups
        .slice(0, start)
        .map((g) => g.toString(16))
        .join(':');
      const tail = groups
        .slice(end)
        .map((g) => g.toString(16))
        .join(':');
      agrees(`${head}::${tail}`);
      agrees(`${head}::${tail}:${randomInt(0, 256)}.${randomInt(0, 256)}.1.2`);
    }
  });
});

void describe('writeIp4Literal / writeIp6Literal', () => {
  void it('accept what node:net accepts and write its bytes, for random strings of hex groups and colons', () => {
    // writeIp6Literal's one-pass common case (no IPv4 tail) must agree with the full parser.
    const alphabet = '0000123456789abcdefABCDEF::::';
    const out = Buffer.alloc(16);
    const strings = [
      '::',
      '::1',
      '1::',
      '1:2:3:4:5:6:7:8',
      '1:2:3:4:5:6:7::',
      '::2:3:4:5:6:7:8',
      ':::',
      '1:::2',
    ];
    for (let n = 0; n < 50_000; n++) {
      const length = randomInt(2, 40);
      let s = '';
      for (let i = 0; i < length; i++) s += alphabet[randomInt(0, alphabet.length)];
      strings.push(s);
    }
    for (const s of strings) {
      const valid = isIP(s) === 6;
      assert.equal(writeIp6Literal(s, out, 0), valid, JSON.stringify(s));
      // node's canonical text of it (WHATWG URL: RFC 5952 compression, lower case).
      if (valid)
        assert.equal(`[${formatIp6(out, 0)}]`, new URL(`http://[${s}]/`).hostname, JSON.stringify(s));
    }
  });

  void it('write the bytes the text means, however an IPv6 address is printed', () => {
    for (let n = 0; n < 2_000; n++) {
      const groups = Array.from({ length: 8 }, () => (randomInt(0, 3) === 0 ? 0 : randomInt(0, 0x10000)));
      const bytes = Buffer.alloc(16);
      groups.forEach((g, i) => bytes.writeUInt16BE(g, 2 * i));
      const start = randomInt(0, 8);
      const end = randomInt(start + 1, 9);
      const hex = (gs: number[]): string => gs.map((g) => g.toString(16)).join(':');
      const zeroed = groups.slice(start, end).every((g) => g === 0);
      const spellings = [hex(groups), `${hex(groups.slice(0, 6))}:${[...bytes.subarray(12)].join('.')}`];
      if (zeroed) spellings.push(`${hex(groups.slice(0, start))}::${hex(groups.slice(end))}`);
      for (const text of spellings) {
        const out = Buffer.alloc(18, 0xee);
        assert.equal(writeIp6Literal(text, out, 1), true, text);
        assert.deepEqual(out.subarray(1, 17), bytes, text);
        assert.equal(out[0], 0xee, 'nothing written before the offset');
        assert.equal(out[17], 0xee, 'nothing written after the address');
      }
      assert.equal(formatIp6(bytes, 0), formatIp6(Buffer.from(bytes), 0));
    }
  });

  void it('format canonically, and parse back to the same bytes', () => {
    const b = Buffer.alloc(16);
    assert.equal(writeIp6Literal('2001:0DB8:0:0:1:0:0:1', b, 0), true);
    assert.equal(formatIp6(b, 0), '2001:db8::1:0:0:1', 'lower case, the first of equal zero runs');
    const v4 = Buffer.alloc(4);
    assert.equal(writeIp4Literal('169.254.169.103', v4, 0), true);
    assert.deepEqual([...v4], [169, 254, 169, 103]);
    assert.equal(formatIp4(v4, 0), '169.254.169.103');
  });

  void it('refuse leading zeros in IPv4, alone or as an IPv6 tail, and write nothing', () => {
    // VPP's CLI reads 010 as 10, inet_aton as octal 8: vppnet accepts neither reading.
    for (const text of ['010.0.0.1', '10.0.0.01', '00.0.0.0']) {
      assert.equal(isIp4Literal(text), false, text);
      const out = Buffer.alloc(4, 0xee);
      assert.equal(writeIp4Literal(text, out, 0), false, text);
      assert.deepEqual([...out], [0xee, 0xee, 0xee, 0xee], 'nothing written');
    }
    assert.equal(isIp6Literal('::ffff:010.0.0.1'), false);
    assert.equal(writeIp6Literal('::ffff:010.0.0.1', Buffer.alloc(16), 0), false);
  });

  void it('are what the VPP codec encodes with: it refuses what they refuse, naming the text', () => {
    const isEncodeError = (what: string) => (err: unknown) =>
      err instanceof VppError && err.code === 'VPPNET_ERR_ENCODE' && err.message.includes(what);
    assert.throws(() => writeIp4('010.0.0.1', Buffer.alloc(4), 0), isEncodeError('"010.0.0.1"'));
    assert.throws(
      () => writeIp6('::ffff:010.0.0.1', Buffer.alloc(16), 0),
      isEncodeError('"::ffff:010.0.0.1"'),
    );
    assert.throws(() => writeIp6('1::2::3', Buffer.alloc(16), 0), isEncodeError('IPv6 address'));
    const b = Buffer.alloc(16);
    writeIp6('::ffff:10.0.0.1', b, 0);
    assert.equal(b.toString('hex'), '00000000000000000000ffff0a000001');
  });
});
