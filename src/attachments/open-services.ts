/**
 * Everything the agent runtime needs for the service bridge, wired once per VPP client: the lock
 * shared by full reconciles and pod attachments, the service address keeper, the attachment
 * manager (both persisted under the state directory) and the local API server over them.
 *
 *   const services = await openServices({ client, host, stateDir, services: () => config?.services });
 *   await services.localApi.listen(DEFAULT_AGENT_SOCKET);
 *   await services.serviceMapApi.listen(DEFAULT_SERVICE_MAP_SOCKET);
 *   await reconcile(config, { client, host, globals, services: services.runtime });
 */
import type { ServicesConfig } from '../config/model.js';
import type { HostLinks } from '../dataplane/context.js';
import type { VppApi } from '../vpp/client/vpp-api.js';
import type { ServicesRuntime } from '../services/runtime.js';
import { ServiceAddresses } from '../services/service-addresses.js';
import { AddressBookFileStore } from './address-book-file-store.js';
import { AsyncLock } from './async-lock.js';
import { AttachmentManager } from './attachment-manager.js';
import { AttachmentFileStore } from './attachment-store.js';
import { LocalApiServer, vppConnectedOf } from './local-api.js';
import { linuxPodNetnsIn, type PodNetns } from './pod-netns.js';

export interface OpenServicesOptions {
  readonly client: VppApi;
  readonly host: HostLinks;
  /** The owner's mark on the pods' host links (hostLinkOwner of the VPP socket), as in `host`. */
  readonly hostLinkOwner: string;
  /** The agent's state directory: service-addresses.json and attachments/ live here. */
  readonly stateDir: string;
  /** The service bridge of the config in force; undefined while there is none. */
  readonly services: () => ServicesConfig | undefined;
  readonly netns?: PodNetns;
  /** Where the runtime pins pods' namespaces (ignored when `netns` is given). */
  readonly podNetnsDirs?: readonly string[];
  readonly clock?: () => number;
}

export interface OpenedServices {
  /** Pass as ReconcileOptions.services to every reconcile. */
  readonly runtime: ServicesRuntime;
  readonly manager: AttachmentManager;
  readonly addresses: ServiceAddresses;
  /** The privileged API for vppnet-cni. Not listening yet: the runtime decides where and when. */
  readonly localApi: LocalApiServer;
  /** The read-only service map for the service pods. Not listening yet either. */
  readonly serviceMapApi: LocalApiServer;
}

export async function openServices(opts: OpenServicesOptions): Promise<OpenedServices> {
  const lock = new AsyncLock();
  const addresses = new ServiceAddresses(new AddressBookFileStore(opts.stateDir), opts.clock);
  const manager = await AttachmentManager.open({
    client: opts.client,
    host: opts.host,
    hostLinkOwner: opts.hostLinkOwner,
    lock,
    store: new AttachmentFileStore(opts.stateDir),
    services: opts.services,
    ...(opts.netns !== undefined
      ? { netns: opts.netns }
      : opts.podNetnsDirs !== undefined && { netns: linuxPodNetnsIn(opts.podNetnsDirs) }),
    ...(opts.clock !== undefined && { clock: opts.clock }),
  });
  const deps = {
    attachments: manager,
    vppConnected: vppConnectedOf(opts.client),
    serviceMap: () => addresses.serviceMap(),
  };
  const localApi = new LocalApiServer(deps, 'privileged');
  const serviceMapApi = new LocalApiServer(deps, 'service-map');
  return { runtime: { addresses, attachments: manager, lock }, manager, addresses, localApi, serviceMapApi };
}
