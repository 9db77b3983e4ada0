/**
 * How long the acl plugin keeps an idle UDP session. The pods' output ACL is reflexive
 * (pod-acls.ts): every VM→pod flow, each DNS query from a new source port included, holds a
 * session in the plugin's one table (500,000 by default, acl-plugin "connection count max"),
 * idle UDP ones for 600 s by default, and a full table refuses every new flow, of every VM
 * (dataplane_node.c ACL_TOO_MANY_SESSIONS; only TCP sessions that never got established are
 * recycled). With each VM's rate to the services policed (vm-rate-limit.ts), the sessions one VM
 * can hold are its rate in packets times this timeout: shortening it keeps a flood from filling
 * the table. A DNS answer or a DHCP reply comes back within seconds, so a short idle time costs
 * nothing.
 *
 * VPP has no API message for it and prints it nowhere: it is set with the CLI (acl.c
 * acl_set_aclplugin_fn, "set acl-plugin session timeout udp idle N"), and what was set on a VPP
 * process is remembered with the SR globals (one file per node), as VPP cannot be asked. Removed,
 * it goes back to VPP's default.
 */
import { keys } from '../dataplane/keys.js';
import { msg } from '../vpp/messages/index.js';
import { defineKind } from '../reconcile/kind.js';
import type { ServicesContext } from './context.js';

/** UDP_SESSION_IDLE_TIMEOUT_SEC in the acl plugin (acl.h). */
export const VPP_UDP_IDLE_SECONDS = 600;

export interface AclSessionTimeoutsValue {
  readonly udpIdleSeconds: number;
}

function setUdpIdle(ctx: ServicesContext, seconds: number): Promise<string> {
  return ctx.client.cli(`set acl-plugin session timeout udp idle ${seconds}`);
}

export const aclSessionTimeoutsDescriptor = defineKind<AclSessionTimeoutsValue, ServicesContext>({
  kind: 'acl-session-timeouts',
  // No message sets it: the acl plugin's CLI (through cli_inband).
  messages: { optional: [msg.cli_inband] },
  key: () => keys.aclSessionTimeouts(),
  async create(ctx, { value }) {
    await setUdpIdle(ctx, value.udpIdleSeconds);
  },
  async delete(ctx) {
    await setUdpIdle(ctx, VPP_UDP_IDLE_SECONDS);
  },
  async update(ctx, { value }) {
    await setUdpIdle(ctx, value.udpIdleSeconds);
  },
});
