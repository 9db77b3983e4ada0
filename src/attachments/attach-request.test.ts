import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AgentApiError } from '../agent-api/errors.js';
import { validateAttachRequest } from './attach-request.js';

const good = {
  network: 'vppnet-metadata',
  containerId: 'c1',
  ifname: 'net1',
  netns: '/var/run/netns/p1',
  mode: 'auto',
  ips: [{ address: '169.254.169.254/24', gateway: '169.254.169.1' }],
  routes: [{ dst: '169.252.252.0/24', gw: '169.254.169.1' }],
  mac: '52:54:00:AA:00:01',
};

function problem(edit: Record<string, unknown>): string {
  try {
    validateAttachRequest({ ...good, ...edit });
  } catch (err) {
    assert.ok(err instanceof AgentApiError);
    return err.message;
  }
  return '';
}

describe('attach request: the shared formats of src/net', () => {
  it('takes what the CNI plugin sends, its MAC in lower case', () => {
    assert.equal(validateAttachRequest(good).mac, '52:54:00:aa:00:01');
  });

  it('refuses a multicast MAC, as the plugin does', () => {
    assert.match(problem({ mac: '01:00:5e:00:00:01' }), /mac must be a unicast MAC address/);
  });

  it('refuses an address with a zone or without a length, and a bad link name', () => {
    assert.match(problem({ ips: [{ address: 'fe80::1%eth0/64' }] }), /ips\[0\]\.address/);
    assert.match(problem({ routes: [{ dst: '10.0.0.0' }] }), /routes\[0\]\.dst/);
    assert.match(problem({ ifname: 'a-very-long-ifname' }), /ifname must be a Linux interface name/);
    // JSON carries a NUL, which `ip` would cut the name at: the pod would get "ne", the record "ne\0t1".
    assert.match(problem({ ifname: 'ne\u0000t1' }), /ifname must be a Linux interface name/);
  });
});

describe('attach request: the container ID', () => {
  it("takes the CNI spec's IDs: a runtime's hex, names with _ . -", () => {
    for (const containerId of ['c1', 'a'.repeat(64), '0f3e_pod.sandbox-1'])
      assert.equal(validateAttachRequest({ ...good, containerId }).containerId, containerId);
  });

  it('refuses what the spec does not allow, as vppnet-cni refuses CNI_CONTAINERID', () => {
    for (const containerId of ['', '../../etc', 'a/b', '.hidden', '-x', 'a b', 'a\nb', 'a\0b', 'ä', 7])
      assert.match(
        problem({ containerId }),
        /containerId must be a container ID/,
        JSON.stringify(containerId),
      );
  });
});
