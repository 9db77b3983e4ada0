/**
 * VPP's ~0 for a u32 index (vppinfra's `~0`): in a dump's filter it means "all" (sw_if_index,
 * bd_id, acl_index), in a request "none" (a route path via no interface, no table) or "a new
 * one" (acl_add_replace's acl_index, tap_create_v3's id). One value, so one name, read as
 * "no particular index".
 */
export const NO_INDEX = 0xffffffff;
