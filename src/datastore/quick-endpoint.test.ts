/**
 * The quick read of an endpoint record accepts only what the general validator accepts, as the
 * same record, and parseRecord gives what the general path alone gives: the same records, the
 * same refusals with the same messages. Over a table of near misses and random edits of values
 * and keys.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KeySchema } from './keys.js';
import { quickEndpointRecord } from './quick-endpoint.js';
import { parseRecord, validateRecord, type DatastoreRecord, type RecordProblem } from './records.js';
import { seededRandom, pickWith } from '../util/testing/seeded-random.js';

const schema = new KeySchema('/q/');

/** parseRecord without the quick read: the key parsed, the value parsed as JSON, validated. */
function general(key: string, text: string): DatastoreRecord | RecordProblem[] {
  const k = schema.parse(key);
  if ('error' in k) return [{ key, path: '(key)', message: k.error }];
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return [{ key, path: '(value)', message: `is not JSON: ${(err as Error).message}` }];
  }
  return validateRecord(key, k, raw);
}

/** Asserts the agreement for one key and value; whether the quick read accepted it. */
function agrees(key: string, text: string): boolean {
  const expected = general(key, text);
  assert.deepEqual(parseRecord(schema, key, text), expected, `${key} ${text}`);
  const k = schema.parse(key);
  const quick = 'kind' in k && k.kind === 'endpoint' ? quickEndpointRecord(k, text) : undefined;
  if (quick !== undefined) assert.deepEqual(quick, expected, `${key} ${text}`);
  return quick !== undefined;
}

const VALUES = [
  '{"node":"hv1"}',
  '{"node":"hv1.rack-2.example.com"}',
  '{"node":"a"}',
  '{"node":""}',
  '{"node":"HV1"}',
  '{"node":"-hv1"}',
  '{"node":"hv1-"}',
  '{"node":"hv..1"}',
  '{"node":"hv 1"}',
  '{"node":"hv\\u0031"}',
  '{"node":"hv1\\""}',
  '{"node":"hv1","node":"hv2"}',
  '{"node":"hv1","extra":1}',
  '{"node": "hv1"}',
  ' {"node":"hv1"}',
  '{"node":"hv1"} ',
  '{"node":"hv1"}x',
  '{"node":"}',
  '{"node":"hv1"',
  '{"node":1}',
  '{"node":null}',
  '{}',
  '[]',
  'null',
  `{"node":"${'a'.repeat(254)}"}`,
  `{"node":"${'a'.repeat(63)}.${'b'.repeat(63)}"}`,
];

const PREFIXES = [
  '10.0.0.0_24',
  '10.0.0.1_24',
  '10.0.0.7_32',
  '0.0.0.0_0',
  '1.0.0.0_0',
  '169.254.0.0_16',
  '169.254.169.254_32',
  '169.0.0.0_8',
  '127.0.0.1_32',
  '224.0.0.0_4',
  '240.0.0.0_4',
  '10.0.0.0_05',
  '2001:db8::_64',
  '2001:db8::1_64',
  'fe80::_64',
  'fe80::_10',
  'fe80::_9',
  'ff00::_8',
  '::1_128',
  '::_0',
  '2001:db8:0:1::5_128',
  '2001:db8::_129',
  '2001:0db8::_64',
];

const VPCS = ['vpc1', 'Vpc1', '-vpc', 'v'.repeat(32), 'v'.repeat(33), 'blue'];

describe('the quick read of an endpoint record', () => {
  test('agrees with the general validator on a table of near misses', () => {
    let accepted = 0;
    for (const vpc of VPCS)
      for (const p of PREFIXES)
        for (const text of VALUES) if (agrees(`/q/endpoints/${vpc}/${p}`, text)) accepted++;
    // The common shape is taken quickly: the quick read was compared, not only skipped.
    assert.ok(accepted >= 3 * 3 * 3, `${accepted} accepted quickly`);
  });

  test('agrees with the general validator on random edits of a valid record', () => {
    const random = seededRandom(0x1b873593);
    const pick = <T>(xs: readonly T[]): T => pickWith(random, xs);
    const alphabet = [
      ...'"\\{}:,. -_/0123456789aAzé',
      'node',
      '\\u0041',
      '\\"',
      '255',
      '169.254',
      'fe80',
      '::',
    ];
    const edit = (s: string): string => {
      const at = Math.floor(random() * (s.length + 1));
      const op = random();
      if (op < 0.4) return s.slice(0, at) + pick(alphabet) + s.slice(at + 1);
      if (op < 0.7) return s.slice(0, at) + pick(alphabet) + s.slice(at);
      return s.slice(0, at) + s.slice(at + 1);
    };
    let accepted = 0;
    for (let n = 0; n < 20_000; n++) {
      let key = random() < 0.7 ? '/q/endpoints/vpc1/10.0.4.0_24' : '/q/endpoints/vpc1/2001:db8:4::_48';
      let text = '{"node":"hv1"}';
      for (let edits = Math.floor(random() * 3); edits > 0; edits--)
        if (random() < 0.5) key = edit(key);
        else text = edit(text);
      if (agrees(key, text)) accepted++;
    }
    assert.ok(accepted > 1000, `${accepted} accepted quickly`);
  });
});
