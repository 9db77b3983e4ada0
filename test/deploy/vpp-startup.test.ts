/**
 * deploy/vpp/startup.conf enables every VPP plugin whose API messages vppnet sends. The plugins
 * come from the API files the generated messages were made from (the `Sources:` line of
 * src/vpp/messages/generated/messages.ts), so a message from a new plugin fails this test until
 * the file enables that plugin; and the socket is the one the agent connects to by default.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '../../deploy/render/overlays.js';
import { DEFAULT_SOCKET_PATH } from '../../src/vpp/client/vpp-client.js';

const STARTUP_CONF = readFileSync(join(REPO_ROOT, 'deploy', 'vpp', 'startup.conf'), 'utf8');
const MESSAGES_TS = readFileSync(
  join(REPO_ROOT, 'src', 'vpp', 'messages', 'generated', 'messages.ts'),
  'utf8',
);

/**
 * VPP API file → the plugin that serves it, from each plugin's CMakeLists.txt in VPP 26.06
 * (`add_vpp_plugin(NAME … API_FILES …)` builds NAME_plugin.so). undefined: vppnet's agent sends
 * none of its messages in production (memif: only the tests' and the lab's underlay).
 */
const PLUGIN_OF_API: Readonly<Record<string, string | undefined>> = {
  acl: 'acl_plugin.so',
  af_packet: 'af_packet_plugin.so',
  arping: 'arping_plugin.so',
  dhcp: 'dhcp_plugin.so',
  memif: undefined,
  nat44_ed: 'nat_plugin.so', // src/plugins/nat/nat44-ed is part of the nat plugin
  nat44_ei: 'nat44_ei_plugin.so',
  // Defined for the simulator ahead of IPv6 services (issue 23); enable nat66_plugin.so in
  // deploy/vpp/startup.conf with the first descriptor that sends one.
  nat66: undefined,
  policer: 'policer_plugin.so',
  tapv2: 'tap_plugin.so',
  urpf: 'urpf_plugin.so',
  vhost_user: 'vhost_plugin.so',
};

/** The config without comments. */
const CONF = STARTUP_CONF.split('\n')
  .map((line) => line.replace(/#.*$/, ''))
  .join('\n');

function pluginsSection(conf: string): string {
  const m = /^plugins\s*\{([\s\S]*?)^\}/m.exec(conf);
  assert.ok(m, 'startup.conf has a plugins { } section');
  return m[1] ?? '';
}

function enabledPlugins(conf: string): Set<string> {
  return new Set(
    [...pluginsSection(conf).matchAll(/^\s*plugin\s+(\S+)\s*\{\s*enable\s*\}/gm)].map((m) => m[1] ?? ''),
  );
}

describe('deploy/vpp/startup.conf', () => {
  const apiPlugins = [
    ...(/^\/\/ Sources: (.*)$/m.exec(MESSAGES_TS)?.[1] ?? '').matchAll(/plugins\/([a-z0-9_]+)\.api\.json/g),
  ].map((m) => m[1] ?? '');

  it('enables the plugin of every plugin API file vppnet uses, and disables the rest', () => {
    assert.ok(apiPlugins.length > 0, 'the generated messages name their API files');
    const enabled = enabledPlugins(CONF);
    for (const api of apiPlugins) {
      assert.ok(api in PLUGIN_OF_API, `plugins/${api}.api.json: which plugin serves it? (PLUGIN_OF_API)`);
      const plugin = PLUGIN_OF_API[api];
      if (plugin !== undefined) assert.ok(enabled.has(plugin), `${plugin} (${api}.api) is enabled`);
    }
    assert.match(pluginsSection(CONF), /^\s*plugin\s+default\s*\{\s*disable\s*\}/m);
    assert.ok(enabled.has('dpdk_plugin.so'), 'the underlay NIC needs DPDK');
  });

  it('the check above tells a missing plugin apart', () => {
    const without = CONF.replace(/^\s*plugin nat_plugin\.so \{ enable \}$/m, '');
    assert.notEqual(without, CONF);
    assert.equal(enabledPlugins(without).has('nat_plugin.so'), false);
  });

  it("serves the API on the agent's default socket and sets the sections a production VPP needs", () => {
    assert.match(CONF, new RegExp(`^socksvr\\s*\\{\\s*socket-name ${DEFAULT_SOCKET_PATH}\\s*\\}`, 'm'));
    for (const section of ['unix', 'api-segment', 'statseg', 'memory', 'buffers', 'cpu', 'dpdk'])
      assert.match(CONF, new RegExp(`^${section}\\s*\\{`, 'm'), section);
    assert.match(CONF, /^\s*nodaemon$/m);
    assert.match(CONF, /^\s*main-heap-size \S+$/m);
    assert.match(CONF, /^\s*dev [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7] \{[^}]*num-rx-queues \d+/m);
  });
});
