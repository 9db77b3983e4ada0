/**
 * The vppnet-agent's local API: HTTP/1.1 over two Unix sockets split by privilege. The privileged
 * one (mode 0600 in a 0700 directory, default /run/vppnet-agent/agent.sock) serves every route
 * below, for vppnet-cni; the service-map one (mode 0666, default
 * /run/vppnet/services/service-map.sock, in a directory service pods mount) serves only
 * `GET /v1/service-map` and answers anything else 403 with code 104. These types are the contract for both sides; the agent's server
 * (src/attachments/local-api.ts) is written against them, the plugin's client
 * (src/cni/agent-client.ts) uses them. JSON bodies, `content-type: application/json`.
 *
 * Routes:
 * - `POST   /v1/attachments`                                 AttachRequest -> 200 AttachResponse
 * - `DELETE /v1/attachments?containerId=&ifname=&netns=`     -> 204, also when nothing exists
 * - `GET    /v1/attachments?containerId=&ifname=&netns=`     -> 200 AttachmentState | 404 AgentErrorBody
 * - `POST   /v1/gc`                                          GcRequest -> 204
 * - `GET    /v1/status`                                      -> 200 StatusResponse | 503 AgentErrorBody (code 50)
 * - `GET    /v1/service-map`                                 -> 200 ServiceMapEntry[] (service-map.ts)
 *
 * Every non-2xx answer carries an AgentErrorBody whose `code` is a CNI error code (errors.ts
 * AgentErrorCode); the plugin prints it to the runtime unchanged, so the agent chooses the code the
 * runtime should see: 7 for a request it rejects, 11 while VPP is not (yet) connected, 50 for
 * STATUS when VPP is down, 100 when CNI_IFNAME already exists in the netns, 101 when CHECK finds no
 * attachment, 102 when the netns cannot be opened, 999 for anything else.
 *
 * GC is per network (spec 1.1.0): the request names the network, and only attachments made with
 * that network name (AttachRequest.network) and absent from the list may be removed.
 *
 * Idempotency the plugin relies on: DELETE of something absent is a success (DEL is repeated by
 * runtimes and runs after failed ADDs); an attachment is identified by (containerId, ifname) as in
 * the spec, `netns` is informative on DELETE and may be '' (CNI_NETNS is optional for DEL). Host-side
 * names are derived from (containerId, ifname) only, so a restarted agent can find them.
 */

export const AGENT_API_PATHS = {
  attachments: '/v1/attachments',
  gc: '/v1/gc',
  status: '/v1/status',
} as const;

/** Not for vppnet-cni: the metadata and DHCP services read it. */
export const SERVICE_MAP_PATH = '/v1/service-map';

/**
 * vppnet-cni's socket. Its own directory, root-only, that no pod mounts: /run/vppnet also holds the
 * VMs' vhost-user sockets and is no place for either the privileged API or what pods mount.
 */
export const DEFAULT_AGENT_SOCKET = '/run/vppnet-agent/agent.sock';

/** The service pods' read-only socket; its directory is the one thing they mount. */
export const DEFAULT_SERVICE_MAP_SOCKET = '/run/vppnet/services/service-map.sock';

/** `auto`: the agent prefers a VPP tap (needs /dev/vhost-net) and falls back to a veth + af_packet. */
export type AttachMode = 'auto' | 'tap' | 'veth';
export const ATTACH_MODES: readonly AttachMode[] = ['auto', 'tap', 'veth'];

/**
 * The CNI spec's container ID: an alphanumeric first character, then alphanumerics, `_`, `.` or
 * `-`. vppnet-cni refuses CNI_CONTAINERID otherwise (code 4), and the agent refuses a request
 * whose containerId is not one: the ID is hashed into names and written into records and logs,
 * and nothing that spells a path, a newline or a control character has a reason to arrive.
 */
export function isContainerId(value: unknown): value is string {
  return typeof value === 'string' && /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/.test(value);
}

/** The spec's attachment identity plus the netns it lives in. */
export interface AttachmentKey {
  readonly containerId: string;
  readonly ifname: string;
  /** CNI_NETNS; '' on a DEL without one. */
  readonly netns: string;
}

export interface AttachIp {
  /** Address with prefix length, e.g. '169.254.169.103/24'. */
  readonly address: string;
  readonly gateway?: string;
}

export interface AttachRoute {
  /** e.g. '169.252.252.0/24' */
  readonly dst: string;
  /** Next hop. The plugin fills it from the same-family IP's gateway when IPAM gave none, as the reference plugins do. */
  readonly gw?: string;
}

export interface AttachRequest extends AttachmentKey {
  /**
   * The network config's `name`. GC is scoped to one network, so the agent records which network
   * each attachment belongs to; two networks using vppnet-cni must not collect each other's pods.
   */
  readonly network: string;
  readonly ips: readonly AttachIp[];
  readonly routes: readonly AttachRoute[];
  readonly mtu?: number;
  /** Pod interface MAC requested by the runtime (runtimeConfig.mac > args.cni.mac > CNI_ARGS MAC). */
  readonly mac?: string;
  readonly mode: AttachMode;
}

export interface AgentInterface {
  readonly name: string;
  readonly mac: string;
  /** The netns path for the pod's interface; absent for host-side interfaces. */
  readonly sandbox?: string;
  readonly mtu?: number;
}

export interface AttachResponse {
  /** Must contain the pod interface: name = ifname, sandbox = netns. Host-side ones may precede it. */
  readonly interfaces: readonly AgentInterface[];
  /** The mode actually used ('auto' resolved). */
  readonly mode: 'tap' | 'veth';
}

/** What the agent observes now, for CHECK (the plugin compares it with prevResult). */
export interface AttachmentState extends AttachmentKey {
  readonly mode: 'tap' | 'veth';
  readonly interfaces: readonly AgentInterface[];
  /** Read from inside the netns at the time of the request. */
  readonly podInterface: {
    readonly name: string;
    readonly mac: string;
    readonly up: boolean;
    /** Addresses with prefix length, as `ip addr` shows them. */
    readonly addresses: readonly string[];
  };
}

/** Spec 1.1.0 `cni.dev/valid-attachments` entries, spelled as the spec spells them. */
export interface ValidAttachment {
  readonly containerID: string;
  readonly ifname: string;
}

export interface GcRequest {
  /** The network config's `name`: only attachments made for this network are candidates. */
  readonly network: string;
  /** Every attachment of this network not in the list may be removed. */
  readonly validAttachments: readonly ValidAttachment[];
}

export interface StatusResponse {
  readonly vpp: 'connected';
}

export interface AgentErrorBody {
  readonly code: number;
  readonly msg: string;
  readonly details?: string;
}

/** Query string for DELETE/GET; both sides use these two functions so the names cannot drift. */
export function attachmentKeyToQuery(key: AttachmentKey): string {
  const query = new URLSearchParams({ containerId: key.containerId, ifname: key.ifname, netns: key.netns });
  return query.toString();
}

export function attachmentKeyFromQuery(query: URLSearchParams): AttachmentKey | undefined {
  const containerId = query.get('containerId');
  const ifname = query.get('ifname');
  if (!isContainerId(containerId) || ifname === null || ifname === '') return undefined;
  return { containerId, ifname, netns: query.get('netns') ?? '' };
}
