/** SteeringEntries, IPv4 and IPv6: growth, sharing columns across BSIDs, key matching, groups. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SteeringEntries, type KeyMatch } from './steering-entries.js';
import { entries, B1, B2 } from '../../test/support/steering-plan.js';

describe('SteeringEntries', () => {
  it('grows past its capacity and gives back what was added', () => {
    const e = new SteeringEntries(1);
    for (let i = 0; i < 300; i++) e.add(4_000_000_000 + i, `10.${i >> 8}.${i & 255}.0`, 24, i % 2 ? B1 : B2);
    assert.equal(e.size, 300);
    assert.equal(e.table(299), 4_000_000_299);
    assert.equal(e.prefix(299), '10.1.43.0/24');
    assert.equal(e.bsid(299), B1);
    assert.deepEqual(e.bsids, [B2, B1], 'each BSID stored once');
    assert.equal(e.prefix(0), '10.0.0.0/24');
  });

  it('gives the same entries with other BSIDs, neither side changed by adding to the other', () => {
    const bySid = new SteeringEntries(2);
    bySid.add(10, '10.1.0.0', 24, 'sid-a');
    bySid.add(10, '10.2.0.0', 24, 'sid-b');
    const withBsids = bySid.withBsids([B1, B2]);
    const list = (e: SteeringEntries): string[] =>
      Array.from({ length: e.size }, (_, i) => `${e.table(i)} ${e.prefix(i)} ${e.bsid(i)}`);
    assert.deepEqual(list(withBsids), [`10 10.1.0.0/24 ${B1}`, `10 10.2.0.0/24 ${B2}`]);
    withBsids.add(11, '10.3.0.0', 24, B2);
    bySid.add(12, '10.4.0.0', 24, 'sid-a');
    assert.deepEqual(list(withBsids), [
      `10 10.1.0.0/24 ${B1}`,
      `10 10.2.0.0/24 ${B2}`,
      `11 10.3.0.0/24 ${B2}`,
    ]);
    assert.deepEqual(list(bySid), ['10 10.1.0.0/24 sid-a', '10 10.2.0.0/24 sid-b', '12 10.4.0.0/24 sid-a']);
    assert.equal(withBsids.bsidIndex(2), 1, 'an added entry finds its BSID');
    assert.throws(() => bySid.withBsids([B1]), /1 BSIDs for 2/);
  });

  it('matches keys as comparing them one by one does, the first of repeated found keys', () => {
    const next = lcg(7);
    const tableChoices = [0, 1, 10, 2 ** 31, 2 ** 32 - 1];
    const addressChoices = ['0.0.0.0', '10.0.0.0', '10.0.1.0', '128.0.0.0', '255.255.255.255'];
    const random = (): SteeringEntries => {
      const e = new SteeringEntries(1);
      for (let i = 0; i < 2000; i++)
        e.add(tableChoices[next(5)] as number, addressChoices[next(5)] as string, next(33), B1);
      return e;
    };
    const have = random();
    const want = withoutRepeats(random());
    assert.ok(want.size > 100 && want.size < 2000, 'some keys of each side are on the other');
    assertMatchedByKeyText(want, have);
    // A key twice: the later entry is the duplicate.
    const twice = new SteeringEntries(1);
    twice.add(10, '10.0.0.0', 24, B1);
    twice.add(10, '10.0.0.0', 16, B1);
    twice.add(11, '10.0.0.0', 24, B2);
    twice.add(10, '10.0.0.0', 16, B2);
    assert.equal(twice.matchKeys(have).duplicate, 3);
  });
});

/** A linear congruential generator's next value below n: the same numbers every run. */
function lcg(seed: number): (n: number) => number {
  return (n) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % n;
  };
}

const keyOf = (e: SteeringEntries, i: number): string => `${e.table(i)} ${e.prefix(i)}`;

/** The first entry of each key of the sets, in turn (every other entry of each set after the first). */
function withoutRepeats(...sets: SteeringEntries[]): SteeringEntries {
  const out = new SteeringEntries(1, (sets[0] as SteeringEntries).family);
  const seen = new Set<string>();
  sets.forEach((e, k) => {
    for (let i = 0; i < e.size; i += k === 0 ? 1 : 2) {
      if (seen.has(keyOf(e, i))) continue;
      seen.add(keyOf(e, i));
      if (e.family === 4) out.addNumber(e.table(i), e.address(i), e.prefixLength(i), e.bsid(i));
      else out.addBytes(e.table(i), e.addressBytes(i), e.prefixLength(i), e.bsid(i));
    }
  });
  return out;
}

/** matchKeys' desiredOf and matched: what inverting counterpart gives. */
function assertInverse(match: KeyMatch): void {
  const expected = new Array<number>(match.desiredOf.length).fill(-1);
  match.counterpart.forEach((j, i) => j >= 0 && (expected[j] = i));
  assert.deepEqual([...match.desiredOf], expected);
  assert.equal(match.matched, match.counterpart.filter((j) => j >= 0).length);
}

/**
 * matchKeys finds no duplicate, pairs the entries as their key texts do, inverts its pairs, and
 * the case is a real one: some entries of `want` are matched and some are not.
 */
function assertMatchedByKeyText(want: SteeringEntries, have: SteeringEntries): void {
  const match = want.matchKeys(have);
  const { counterpart, duplicate } = match;
  assert.equal(duplicate, undefined);
  assert.deepEqual([...counterpart], expectedCounterparts(want, have));
  assertInverse(match);
  assert.ok(counterpart.some((j) => j < 0) && counterpart.some((j) => j >= 0));
}

/** matchKeys' counterparts by comparing key texts: the first entry of `have` with the same key. */
function expectedCounterparts(want: SteeringEntries, have: SteeringEntries): number[] {
  const haveKeys = Array.from({ length: have.size }, (_, j) => keyOf(have, j));
  return Array.from({ length: want.size }, (_, i) => haveKeys.indexOf(keyOf(want, i)));
}

describe('IPv6 SteeringEntries', () => {
  const list = (e: SteeringEntries): string[] =>
    Array.from({ length: e.size }, (_, i) => `${e.table(i)} ${e.prefix(i)} ${e.bsid(i)}`);

  it('grows past its capacity and gives back canonical prefixes, however added', () => {
    const e = new SteeringEntries(1, 6);
    for (let i = 0; i < 300; i++)
      e.add(
        4_000_000_000 + i,
        `2001:DB8:${i.toString(16)}:0:0:0:0:${(i * 7).toString(16)}`,
        128,
        i % 2 ? B1 : B2,
      );
    assert.equal(e.family, 6);
    assert.equal(e.size, 300);
    assert.equal(e.table(299), 4_000_000_299);
    assert.equal(e.prefix(299), '2001:db8:12b::82d/128');
    assert.equal(e.prefix(0), '2001:db8::/128');
    assert.equal(e.bsid(299), B1);
    assert.deepEqual(e.bsids, [B2, B1], 'each BSID stored once');
    assert.deepEqual(
      [...e.addressBytes(299)],
      [0x20, 0x01, 0x0d, 0xb8, 0x01, 0x2b, ...Array<number>(8).fill(0), 0x08, 0x2d],
    );
    assert.equal(e.addressWord(299, 1), 0x012b0000);

    // The same entry from its bytes, and ::/1 as VPP reports it (0.0.0.0/1: addNumber).
    const other = new SteeringEntries(1, 6);
    other.addBytes(7, e.addressBytes(299), 128, B1);
    other.addNumber(7, 0, 1, B1);
    other.addNumber(7, 5, 128, B1);
    other.add(7, '::ffff:10.0.0.1', 96, B1);
    assert.deepEqual(list(other), [
      `7 2001:db8:12b::82d/128 ${B1}`,
      `7 ::/1 ${B1}`,
      `7 ::5/128 ${B1}`,
      `7 ::ffff:a00:1/96 ${B1}`,
    ]);
    assert.throws(() => other.add(7, '10.0.0.1', 32, B1), /not an IPv6 address/);
    assert.throws(() => new SteeringEntries(1).addBytes(7, new Uint8Array(16), 128, B1), /IPv4 set/);
  });

  it('shares its columns with other BSIDs, and filters them by BSID whole', () => {
    const bySid = new SteeringEntries(2, 6);
    bySid.add(10, '2001:db8:a::5', 128, 'sid-a');
    bySid.add(10, '2001:db8:a::6', 128, 'sid-b');
    bySid.add(11, '8000::', 1, 'sid-a');
    const withBsids = bySid.withBsids([B1, B2]);
    assert.equal(withBsids.family, 6);
    withBsids.add(12, '2001:db8:c::7', 128, B2);
    bySid.add(13, '2001:db8:d::8', 128, 'sid-b');
    assert.deepEqual(list(withBsids), [
      `10 2001:db8:a::5/128 ${B1}`,
      `10 2001:db8:a::6/128 ${B2}`,
      `11 8000::/1 ${B1}`,
      `12 2001:db8:c::7/128 ${B2}`,
    ]);
    assert.deepEqual(list(bySid.filterByBsid((sid) => sid === 'sid-b')), [
      '10 2001:db8:a::6/128 sid-b',
      '13 2001:db8:d::8/128 sid-b',
    ]);
    assert.deepEqual(list(bySid.filterByBsid(() => true)), list(bySid));
  });

  it('matches many keys as comparing them one by one does, the first of repeated found keys', () => {
    const next = lcg(11);
    // Few choices per word, so that keys share words (and whole keys repeat) as a VPC's do.
    const groups = ['0', '1', '2001', 'db8', '8000', 'ffff', 'fe62'];
    const random = (): SteeringEntries => {
      const e = new SteeringEntries(1, 6);
      for (let i = 0; i < 3000; i++) {
        const address = Array.from({ length: 8 }, (_, g) =>
          g % 2 === 0 && next(3) === 0 ? '0' : groups[next(groups.length)],
        );
        e.add(
          [10, 11, 2 ** 32 - 1][next(3)] as number,
          address.join(':'),
          [1, 64, 127, 128][next(4)] as number,
          B1,
        );
      }
      return e;
    };
    const have = random();
    // Some found keys twice, with another BSID.
    for (let j = 0; j < 3000; j += 7)
      have.addBytes(have.table(j), have.addressBytes(j), have.prefixLength(j), B2);
    // Random keys seldom meet: half of the found ones too.
    const want = withoutRepeats(random(), have);
    assertMatchedByKeyText(want, have);
    assert.ok(have.size > withoutRepeats(have).size, 'keys repeat on the found side');
  });

  it('matches keys across sides, finds a repeated one, and refuses the other family', () => {
    const want = entries(
      [
        { table: 10, prefix: '2001:db8:a::6/128', bsid: B1 },
        { table: 10, prefix: '2001:db8:a::5/128', bsid: B1 },
        { table: 11, prefix: '2001:db8:a::5/128', bsid: B1 },
        { table: 10, prefix: '2001:db8:a::5/127', bsid: B1 },
      ],
      6,
    );
    const have = entries(
      [
        { table: 11, prefix: '2001:db8:a::5/128', bsid: B2 },
        { table: 10, prefix: '2001:db8:a::6/128', bsid: B2 },
        { table: 10, prefix: '2001:db8:a::4/128', bsid: B2 },
      ],
      6,
    );
    const { counterpart, duplicate } = want.matchKeys(have);
    assert.equal(duplicate, undefined);
    assert.deepEqual([...counterpart], [1, -1, 0, -1]);
    const twice = entries(
      [
        { table: 10, prefix: '2001:db8:a::5/128', bsid: B1 },
        { table: 10, prefix: '2001:db8:a:0::5/128', bsid: B2 },
      ],
      6,
    );
    assert.equal(twice.matchKeys(have).duplicate, 1);
    assert.throws(() => want.matchKeys(new SteeringEntries()), /IPv6 matched with IPv4/);
  });

  it('keeps one key index for sets sharing columns, and a right one for a set added to', () => {
    const base = entries([
      { table: 2, prefix: '10.0.0.0/24', bsid: B1 },
      { table: 1, prefix: '10.0.9.0/24', bsid: B2 },
    ]);
    const found = entries([
      { table: 1, prefix: '10.0.1.0/24', bsid: B1 },
      { table: 0, prefix: '10.0.0.0/24', bsid: B1 },
      { table: 2, prefix: '10.0.0.0/24', bsid: B1 },
    ]);
    const first = base.withBsids([B2, B1]);
    assert.deepEqual([...first.matchKeys(found).counterpart], [2, -1]);
    const second = base.withBsids([B1, B2]);
    // Adding to either side: that side's index has the new entry, the other's does not.
    second.add(1, '10.0.1.0', 24, B1);
    assert.deepEqual([...second.matchKeys(found).counterpart], [2, -1, 0]);
    assert.deepEqual([...first.matchKeys(found).counterpart], [2, -1]);
    base.add(0, '10.0.0.0', 24, B1);
    assert.deepEqual([...base.matchKeys(found).counterpart], [2, -1, 1]);
    assert.deepEqual([...first.matchKeys(found).counterpart], [2, -1]);
    second.add(2, '10.0.0.0', 24, B2);
    assert.equal(second.matchKeys(found).duplicate, 3);
    assert.equal(first.matchKeys(found).duplicate, undefined);
  });

  it('groups entries by BSID and table once for shared columns, again after an add', () => {
    const base = entries([
      { table: 2, prefix: '10.0.0.0/24', bsid: B1 },
      { table: 2, prefix: '10.0.1.0/24', bsid: B1 },
      { table: 1, prefix: '10.0.9.0/24', bsid: B2 },
      { table: 2, prefix: '10.0.2.0/24', bsid: B1 },
    ]);
    const groups = base.groups();
    assert.deepEqual([...groups.groupOf], [0, 0, 1, 0]);
    assert.deepEqual(
      [groups.bsidIndexes, groups.tables],
      [
        [0, 1],
        [2, 1],
      ],
    );
    assert.equal(base.withBsids([B2, B1]).groups(), groups, 'made once for the shared columns');
    base.add(1, '10.0.3.0', 24, B1);
    assert.deepEqual([...base.groups().groupOf], [0, 0, 1, 0, 2]);
    assert.equal(groups.groupOf.length, 4, 'the shared groups stay as they were');
  });
});
