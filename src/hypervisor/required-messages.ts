import { msg } from '../vpp/messages/index.js';

/**
 * Messages the SRv6 overlay cannot work without: the agent's client refuses, at connect, a VPP
 * that lacks any of them or has changed its layout, listing every one. The service bridge's
 * plugins (nat, acl, dhcp, af_packet, tap) are checked per operation instead: a node without
 * services configured does not need them. ip_neighbor_config_get is not required either: it is
 * in_progress in 26.06 (its layout may change); without it the neighbour settings are set on every
 * pass instead of read back. The arping plugin is optional too (a warning, see reconcilePass).
 */
export const REQUIRED_MESSAGES = [
  msg.sw_interface_dump,
  msg.sw_interface_set_flags,
  msg.sw_interface_tag_add_del,
  msg.sw_interface_set_table,
  msg.sw_interface_get_table,
  msg.sw_interface_add_del_address,
  msg.sw_interface_set_unnumbered,
  msg.create_loopback_instance,
  msg.delete_loopback,
  msg.ip_address_dump,
  msg.ip_unnumbered_dump,
  msg.ip_table_add_del,
  msg.ip_table_dump,
  msg.ip_route_add_del,
  msg.ip_route_v2_dump,
  msg.proxy_arp_add_del,
  msg.proxy_arp_intfc_enable_disable,
  msg.proxy_arp_dump,
  msg.proxy_arp_intfc_dump,
  msg.ip_neighbor_config,
  msg.sr_set_encap_source,
  msg.sr_set_encap_hop_limit,
  msg.sr_localsid_add_del,
  msg.sr_localsids_dump,
  msg.sr_policy_add,
  msg.sr_policy_del,
  msg.sr_policies_v2_dump,
  msg.sr_steering_add_del,
  msg.sr_steering_pol_dump,
  // Source validation is on for every VM port by default: a VPP without the urpf plugin would run
  // VMs that can send as anyone, so it is refused at connect rather than per port.
  msg.urpf_update_v2,
  msg.urpf_interface_dump,
] as const;
