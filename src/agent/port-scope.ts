/**
 * Which problems of a reconcile pass belong to one VM port. A port that cannot be programmed (a
 * QEMU socket path VPP cannot bind, an interface that does not exist yet) is that VM's outage, and
 * the agent reports it per port; it does not take the node out of Ready, because readiness gates
 * the agent's rollout across the fleet and every other VM on the node is served. Anything else
 * that fails (the underlay, a VPC's table or SID, policies, the service bridge) is the node's.
 */
import type { AgentConfig } from '../config/model.js';
import { keys } from '../dataplane/keys.js';
import { portInterfaceName } from '../dataplane/names.js';
import type { Resource } from '../reconcile/resource.js';
import { socketDirectory } from '../srv6/overlay.js';

/** The VM port a resource belongs to: the port's interface, or something that hangs off it. */
export type PortOf = (resource: Resource) => string | undefined;

export function portScope(config: AgentConfig): PortOf {
  const portByKey = new Map(config.ports.map((p) => [keys.interface(portInterfaceName(p)), p.name]));
  // A socket directory is the first port's that needs it; the others wait for it and are blamed
  // through their own interfaces.
  for (const p of config.ports) {
    if (p.attach.type !== 'vhost-user') continue;
    const dirKey = keys.hostDirectory(socketDirectory(p.attach.socket));
    if (!portByKey.has(dirKey)) portByKey.set(dirKey, p.name);
  }
  return (resource) => {
    const own = portByKey.get(resource.key);
    if (own !== undefined) return own;
    for (const dep of resource.deps) {
      const port = portByKey.get(dep);
      if (port !== undefined) return port;
    }
    return undefined;
  };
}
