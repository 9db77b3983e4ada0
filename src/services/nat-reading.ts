/**
 * The NAT state vppnet may own, read for the snapshot: NAT44-EI's, which the service bridge uses
 * (services/nat-descriptors.ts), and NAT44-ED's, which earlier versions used and an upgraded node
 * may still hold (services/nat-ed-descriptors.ts). Each part only where this VPP has the plugin's
 * messages. NAT44-EI answers show_running_config while disabled, with zero sessions (or a
 * non-zero retval), which reads as disabled.
 */
import type { Message } from '../vpp/codec/schema.js';
import { ignoreRetval } from '../vpp/client/retval-error.js';
import type { VppApi } from '../vpp/client/vpp-api.js';
import { msg } from '../vpp/messages/index.js';

export interface NatEiReading {
  /** undefined while the plugin is disabled. */
  readonly config:
    { readonly users: number; readonly sessions: number; readonly userSessions: number } | undefined;
  readonly outputInterfaces: readonly number[];
  readonly static: readonly Message<typeof msg.nat44_ei_static_mapping_details>[];
  readonly identity: readonly Message<typeof msg.nat44_ei_identity_mapping_details>[];
}

/** What vppnet may have left in NAT44-ED (the plugin itself is not vppnet's to turn off). */
export interface NatEdReading {
  readonly outputInterfaces: readonly number[];
  readonly static: readonly Message<typeof msg.nat44_static_mapping_details>[];
  readonly identity: readonly Message<typeof msg.nat44_identity_mapping_details>[];
}

/**
 * NAT66 (the IPv6 side of the service bridge). Its dumps answer nothing while the plugin is
 * disabled, and nothing either when it is enabled and empty: `enabled` means "holds something".
 */
export interface Nat66Reading {
  readonly enabled: boolean;
  readonly interfaces: readonly { readonly swIfIndex: number; readonly inside: boolean }[];
  readonly static: readonly Message<typeof msg.nat66_static_mapping_details>[];
}

export interface NatReading {
  readonly ei: NatEiReading;
  readonly ed: NatEdReading;
  readonly nat66: Nat66Reading;
}

export const NO_NAT: NatReading = {
  ei: { config: undefined, outputInterfaces: [], static: [], identity: [] },
  ed: { outputInterfaces: [], static: [], identity: [] },
  nat66: { enabled: false, interfaces: [], static: [] },
};

const NAT_IS_INSIDE = msg.nat_config_flags_t.values.NAT_IS_INSIDE;

const none = <T>(): Promise<T[]> => Promise.resolve([]);

export async function readNat(client: VppApi): Promise<NatReading> {
  const has = (def: Parameters<VppApi['supports']>[0]): boolean => client.supports(def);
  const [eiConfig, eiOutput, eiStatic, eiIdentity, edOutput, edStatic, edIdentity, n66If, n66Static] =
    await Promise.all([
      has(msg.nat44_ei_show_running_config)
        ? client.call(msg.nat44_ei_show_running_config, {}).catch(ignoreRetval)
        : Promise.resolve(undefined),
      has(msg.nat44_ei_output_interface_get)
        ? client.getAll(msg.nat44_ei_output_interface_get, {})
        : none<Message<typeof msg.nat44_ei_output_interface_details>>(),
      has(msg.nat44_ei_static_mapping_dump)
        ? client.dump(msg.nat44_ei_static_mapping_dump, {})
        : none<Message<typeof msg.nat44_ei_static_mapping_details>>(),
      has(msg.nat44_ei_identity_mapping_dump)
        ? client.dump(msg.nat44_ei_identity_mapping_dump, {})
        : none<Message<typeof msg.nat44_ei_identity_mapping_details>>(),
      has(msg.nat44_ed_output_interface_get)
        ? client.getAll(msg.nat44_ed_output_interface_get, {})
        : none<Message<typeof msg.nat44_ed_output_interface_details>>(),
      has(msg.nat44_static_mapping_dump)
        ? client.dump(msg.nat44_static_mapping_dump, {})
        : none<Message<typeof msg.nat44_static_mapping_details>>(),
      has(msg.nat44_identity_mapping_dump)
        ? client.dump(msg.nat44_identity_mapping_dump, {})
        : none<Message<typeof msg.nat44_identity_mapping_details>>(),
      has(msg.nat66_interface_dump)
        ? client.dump(msg.nat66_interface_dump, {})
        : none<Message<typeof msg.nat66_interface_details>>(),
      has(msg.nat66_static_mapping_dump)
        ? client.dump(msg.nat66_static_mapping_dump, {})
        : none<Message<typeof msg.nat66_static_mapping_details>>(),
    ]);
  const eiOn = eiConfig !== undefined && eiConfig.sessions > 0;
  return {
    ei: {
      config: eiOn
        ? { users: eiConfig.users, sessions: eiConfig.sessions, userSessions: eiConfig.user_sessions }
        : undefined,
      outputInterfaces: eiOutput.map((o) => o.sw_if_index),
      static: eiStatic,
      identity: eiIdentity,
    },
    ed: {
      outputInterfaces: edOutput.map((o) => o.sw_if_index),
      static: edStatic,
      identity: edIdentity,
    },
    nat66: {
      enabled: n66If.length > 0 || n66Static.length > 0,
      interfaces: n66If.map((i) => ({ swIfIndex: i.sw_if_index, inside: (i.flags & NAT_IS_INSIDE) !== 0 })),
      static: n66Static,
    },
  };
}
