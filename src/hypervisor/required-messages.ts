import type { MessageDef } from '../vpp/codec/schema.js';
import { hypervisorDomains } from './kinds.js';

/**
 * Messages the agent cannot work without, derived from what the domains declare (their reads and
 * their kinds' `messages.required`): the agent's client refuses, at connect, a VPP that lacks any
 * of them or has changed its layout, listing every one. The rest are checked per operation: the
 * service bridge's plugins (nat, acl, dhcp, af_packet, tap), which a node without services does
 * not need; ip_neighbor_config_get, in_progress in 26.06 (its layout may change; without it the
 * neighbour settings are set on every pass instead of read back); the arping plugin (a warning,
 * see reconcilePass).
 */
export const REQUIRED_MESSAGES: readonly MessageDef[] = [
  ...new Set(
    hypervisorDomains.flatMap((d) => [
      ...(d.reads.required ?? []),
      ...d.kinds.flatMap((k) => k.messages?.required ?? []),
    ]),
  ),
];
