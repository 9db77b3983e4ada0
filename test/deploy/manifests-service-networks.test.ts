/**
 * The committed manifests' service networks: the NetworkAttachmentDefinitions against Multus' CRD
 * and vppnet-cni's own config parser, the agent configs against the agent's own parser and
 * validator, and the addresses they must agree on.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseNetworkConfig } from '../../src/cni/config.js';
import { MIN_VERSION_FOR_COMMAND } from '../../src/cni/skel.js';
import { compareVersions } from '../../src/cni/version.js';
import { parseConfig } from '../../src/config/load.js';
import type { AgentConfig } from '../../src/config/model.js';
import { AGENT_SOCKET, CNI_TYPE } from '../../deploy/render/contract.js';
import { checkNetworkAttachment } from '../../deploy/render/nad.js';
import { overlayNames } from '../../deploy/render/overlays.js';
import { serviceBridgeConfig } from '../../deploy/render/render.js';
import { type Obj, nameOf, byKind, overlayManifests } from './testing/manifests.js';

for (const overlay of overlayNames()) {
  describe(`deploy/manifests/${overlay}`, () => {
    const { docs, values, fleet, configMap, nads } = overlayManifests(overlay);

    it('NetworkAttachmentDefinitions: Multus CRD shape, config accepted by vppnet-cni, static IPAM', () => {
      assert.ok(nads.length > 0);
      for (const nad of nads) {
        assert.deepEqual(checkNetworkAttachment(nad), [], nameOf(nad));
        const config = parseNetworkConfig((nad.spec as Obj).config as string);
        assert.equal(config.type, CNI_TYPE);
        // STATUS (and GC) exist from 1.1.0 on: an older version answers "config version does not
        // allow STATUS" instead of the agent's verdict.
        assert.ok(
          compareVersions(config.cniVersion, MIN_VERSION_FOR_COMMAND.STATUS ?? '') >= 0,
          `${nameOf(nad)}: cniVersion ${config.cniVersion} allows STATUS`,
        );
        assert.equal(config.agentSocket, AGENT_SOCKET);
      }
    });

    it('the NetworkAttachmentDefinition check does catch a bad config', () => {
      const nad = structuredClone(nads[0]) as Obj;
      const spec = nad.spec as Obj;
      spec.config = (spec.config as string).replace('"mode": "auto"', '"mode": "bridge"');
      assert.match(checkNetworkAttachment(nad).join('\n'), /vppnet-cni rejects it: .*mode/);
      spec.config = '{"cniVersion":"1.0.0","name":"x"';
      assert.match(checkNetworkAttachment(nad).join('\n'), /not JSON/);
    });

    const configs = new Map<string, AgentConfig>();
    it(
      'fleet mode: no ConfigMap at all (the agents take their configs from etcd)',
      { skip: fleet === undefined ? 'file mode' : false },
      () => {
        assert.deepEqual(byKind<Obj>(docs, 'ConfigMap').map(nameOf), []);
        assert.equal(
          docs.some((d) => d.file === '20-agent-config.yaml'),
          false,
        );
      },
    );

    it(
      "agent ConfigMap: every hypervisor's config passes the agent's own parser and validator",
      {
        skip: fleet !== undefined ? 'fleet mode has no ConfigMap' : false,
      },
      () => {
        assert.ok(configMap?.data);
        const keys = Object.keys(configMap.data);
        assert.ok(keys.length > 0);
        for (const [key, text] of Object.entries(configMap.data)) {
          assert.match(key, /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?\.yaml$/, 'key = <Kubernetes node name>.yaml');
          // parseConfig is what the agent runs on the file: YAML (unique keys) then validateConfig.
          const config = parseConfig(text, key);
          assert.ok(config.services, `${key}: the service bridge is configured`);
          configs.set(key, config);
        }
      },
    );

    it('service networks and agent configs agree on every address', () => {
      // Fleet mode: the service bridge of the values, which the node records' `services` must equal.
      const services =
        fleet !== undefined ? [serviceBridgeConfig(values)] : [...configs.values()].map((c) => c.services);
      for (const s of services)
        assert.deepEqual(s, services[0], 'the service bridge is the same on every node');
      const s = services[0];
      assert.ok(s);
      const expected = new Map<string, string>([['vppnet-metadata', s.metadataAddress]]);
      if (s.dhcpServer !== undefined) expected.set('vppnet-dhcp', s.dhcpServer);
      if (s.dnsAddress !== undefined) expected.set('vppnet-dns-proxy', s.dnsAddress);
      // With services.ip6 the metadata and DNS pods hold their IPv6 address too (DHCP is IPv4).
      const expected6 = new Map<string, string>();
      if (s.ip6) expected6.set('vppnet-metadata', s.ip6.metadataAddress);
      if (s.ip6?.dnsAddress !== undefined && s.dnsAddress !== undefined)
        expected6.set('vppnet-dns-proxy', s.ip6.dnsAddress);
      assert.deepEqual(nads.map(nameOf).sort(), [...expected.keys()].sort());
      for (const nad of nads) {
        const ipam = parseNetworkConfig((nad.spec as Obj).config as string).raw.ipam as {
          addresses: { address: string; gateway: string }[];
          routes: { dst: string; gw: string }[];
        };
        const six = expected6.get(nameOf(nad));
        assert.deepEqual(ipam.addresses, [
          { address: `${expected.get(nameOf(nad))}/${s.gateway.len}`, gateway: s.gateway.address },
          ...(six !== undefined && s.ip6
            ? [{ address: `${six}/${s.ip6.gateway.len}`, gateway: s.ip6.gateway.address }]
            : []),
        ]);
        assert.deepEqual(ipam.routes, [
          { dst: `${s.vmAddressRange.address}/${s.vmAddressRange.len}`, gw: s.gateway.address },
          ...(six !== undefined && s.ip6
            ? [
                {
                  dst: `${s.ip6.vmAddressRange.address}/${s.ip6.vmAddressRange.len}`,
                  gw: s.ip6.gateway.address,
                },
              ]
            : []),
        ]);
      }
    });
  });
}
