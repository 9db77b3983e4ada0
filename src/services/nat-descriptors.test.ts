import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AclRegistry } from '../dataplane/acl-registry.js';
import { NO_HOST_FILES } from '../dataplane/context.js';
import { InterfaceRegistry } from '../dataplane/interface-registry.js';
import { RecordingVppApi } from '../vpp/client/testing/recording-vpp-api.js';
import { msg } from '../vpp/messages/index.js';
import { MACIP } from './context.js';
import { natPluginDescriptor } from './nat-descriptors.js';
import { NO_HOST_LINKS } from '../../test/support/no-host-links.js';

function ctxWith(vpp: RecordingVppApi) {
  return {
    client: vpp,
    interfaces: new InterfaceRegistry(),
    host: NO_HOST_LINKS,
    files: NO_HOST_FILES,
    acls: new AclRegistry(),
    macips: new AclRegistry(MACIP),
  };
}

describe('disabling NAT44-EI', () => {
  const plugin = natPluginDescriptor.resource({ users: 254, sessions: 65024, userSessions: 256 });

  it("takes VPP 26.06's VNET_API_ERROR_BUG for done when the plugin is off afterwards", async () => {
    // What VPP answers when an identity mapping outside VRF 0 is the last one it removes.
    const vpp = new RecordingVppApi({ state: 'ready' })
      .answer(msg.nat44_ei_plugin_enable_disable, () => ({ retval: -168 }))
      .answer(msg.nat44_ei_show_running_config, () => ({ sessions: 0 }));
    await natPluginDescriptor.delete(ctxWith(vpp), plugin);
    assert.equal(vpp.requestsFor(msg.nat44_ei_show_running_config).length, 1);
  });

  it('reports it, naming the message and the retval, when the plugin is still on', async () => {
    const vpp = new RecordingVppApi({ state: 'ready' })
      .answer(msg.nat44_ei_plugin_enable_disable, () => ({ retval: -168 }))
      .answer(msg.nat44_ei_show_running_config, () => ({ sessions: 65024 }));
    await assert.rejects(
      natPluginDescriptor.delete(ctxWith(vpp), plugin),
      /nat44_ei_plugin_enable_disable: VPP returned -168/,
    );
  });

  it('reports any other retval as it is', async () => {
    const vpp = new RecordingVppApi({ state: 'ready' }).answer(msg.nat44_ei_plugin_enable_disable, () => ({
      retval: -169,
    }));
    await assert.rejects(natPluginDescriptor.delete(ctxWith(vpp), plugin), /VPP returned -169/);
    assert.equal(vpp.requestsFor(msg.nat44_ei_show_running_config).length, 0);
  });
});
