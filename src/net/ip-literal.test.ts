import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { isIP } from 'node:net';
import { describe, it } from 'node:test';

import { ipLiteralFamily } from './ip-literal.js';

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
