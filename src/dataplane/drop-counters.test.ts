import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseShowErrors } from './drop-counters.js';

/** `show errors` as VPP 26.06 prints it with a worker: the header, then main's lines, then the worker's. */
const TWO_THREADS = [
  '   Count                    Node                              Reason               Severity ',
  '         3             ip4-rx-urpf-strict                   uRPF Drop               error   ',
  '        12            acl-plugin-in-ip6-fa               ACL deny packets           error   ',
  '         7             ip4-rx-urpf-strict                   uRPF Drop               error   ',
  '         1                 ip6-icmp-input            neighbor solicitations for unknown error   ',
  '',
].join('\n');

describe('parseShowErrors', () => {
  it('sums a node and reason over threads and keeps reasons with spaces whole', () => {
    const counts = parseShowErrors(TWO_THREADS);
    assert.equal(counts.get('ip4-rx-urpf-strict\tuRPF Drop'), 10);
    assert.equal(counts.get('acl-plugin-in-ip6-fa\tACL deny packets'), 12);
    assert.equal(counts.get('ip6-icmp-input\tneighbor solicitations for unknown'), 1);
    assert.equal(counts.size, 3, 'the header is not a counter');
  });

  it('reads nothing from an empty answer', () => {
    assert.equal(parseShowErrors('').size, 0);
  });
});
