/**
 * Programming one VPP for the benchmark: vppnet's configuration through its own reconciler (and a
 * pod port through its descriptors, as the attachment manager would), the hand-made one and the
 * neighbours through the CLI.
 */
import { reconcile } from '../../src/agent/reconciler.js';
import { memoryStore } from '../../src/hypervisor/reconcile.js';
import type { AgentConfig, ServicesConfig } from '../../src/config/model.js';
import { NO_HOST_FILES } from '../../src/dataplane/context.js';
import { InterfaceRegistry } from '../../src/dataplane/interface-registry.js';
import { keys, tags } from '../../src/dataplane/keys.js';
import { execute } from '../../src/reconcile/executor.js';
import { plan as makePlan } from '../../src/reconcile/planner.js';
import type { Resource } from '../../src/reconcile/resource.js';
import { AclRegistry } from '../../src/dataplane/acl-registry.js';
import { PORT_TYPE } from '../../src/services/bridge-descriptors.js';
import { MACIP } from '../../src/services/context.js';
import { podDescriptors } from '../../src/services/descriptors.js';
import type { VppClient } from '../../src/vpp/client/vpp-client.js';
import { msg } from '../../src/vpp/messages/index.js';
import { fillAcls, parseAclIndex, type CliStep } from './hand-config.js';
import { noHostLinks } from '../support/no-host-links.js';
import { BenchError, cli } from './vpp-checks.js';

const ALL = 0xffffffff;

/** One reconcile pass of vppnet-agent's reconciler; any failed, skipped or pending resource is an error. */
export async function programVppnet(client: VppClient, config: AgentConfig): Promise<number> {
  const out = await reconcile(config, { client, host: noHostLinks, globals: memoryStore() });
  const problems = [
    ...(out.result?.failed ?? []).map((f) => `${f.op.action} ${f.op.resource.key}: ${f.error.message}`),
    ...(out.result?.skipped ?? []).map((s) => `${s.op.action} ${s.op.resource.key}: ${s.reason}`),
    ...out.plan.pending.map((p) => `${p.resource.key} waits for ${p.waitingFor}`),
    ...(out.warnings ?? []),
  ];
  if (problems.length > 0) {
    throw new BenchError(
      'VPPNET_BENCH_SETUP',
      `vppnet's reconciler could not program the benchmark's paths:\n  ${problems.slice(0, 20).join('\n  ')}`,
    );
  }
  return out.result?.applied ?? 0;
}

/**
 * The metadata pod's port on vppnet's bridge: what src/services/pod-port.ts gives a pod's tap or
 * veth port (bridge member, up, the pods' output ACL), for an interface that already exists (a pg or
 * a NIC), applied with the same planner, executor and descriptors as the attachment manager.
 */
export async function attachPodPort(
  client: VppClient,
  iface: string,
  services: ServicesConfig,
): Promise<void> {
  const [ifDetails, aclDetails] = await Promise.all([
    client.dump(msg.sw_interface_dump, { sw_if_index: ALL, name_filter_valid: false }),
    client.dump(msg.acl_dump, { acl_index: ALL }),
  ]);
  const ifKey = keys.interface(iface);
  const bdKey = keys.bridgeDomain(services.bridgeDomain);
  // Only the output ACL: the measured path enters the pod port's output (VM → pod); what the pod
  // may send (its own input and MACIP ACLs, pod-acls.ts) is never on it.
  const aclOut = tags.podAclOut();
  const given = (kind: string, key: string, value: unknown): Resource => ({
    kind,
    key,
    deps: [],
    value,
    external: true,
  });
  const present = [
    given('interface', ifKey, { type: 'external', name: iface }),
    given('bridge-domain', bdKey, {}),
    given('acl', keys.acl(aclOut), {}),
  ];
  const desired: Resource[] = [
    given('interface', ifKey, { type: 'external', name: iface }),
    {
      kind: 'bridge-port',
      key: keys.bridgePort(iface),
      deps: [ifKey, bdKey],
      value: { iface, bd: services.bridgeDomain, portType: PORT_TYPE.L2_API_PORT_TYPE_NORMAL, shg: 0 },
    },
    { kind: 'admin-up', key: keys.adminUp(iface), deps: [ifKey], value: { iface } },
    {
      kind: 'acl-binding',
      key: keys.aclBinding(iface),
      deps: [ifKey, keys.acl(aclOut)],
      value: { iface, input: [], output: [aclOut] },
    },
  ];
  const plan = makePlan(desired, present, podDescriptors);
  const result = await execute(plan, podDescriptors, {
    client,
    interfaces: InterfaceRegistry.fromDump(ifDetails),
    host: noHostLinks,
    files: NO_HOST_FILES,
    acls: AclRegistry.fromDump(aclDetails),
    macips: new AclRegistry(MACIP),
  });
  const problems = [
    ...plan.pending.map((p) => `${p.resource.key} waits for ${p.waitingFor}`),
    ...result.failed.map((f) => `${f.op.action} ${f.op.resource.key}: ${f.error.message}`),
    ...result.skipped.map((s) => `${s.op.action} ${s.op.resource.key}: ${s.reason}`),
  ];
  if (problems.length > 0)
    throw new BenchError('VPPNET_BENCH_SETUP', `pod port ${iface}: ${problems.join('; ')}`);
}

/** The VPP name of vppnet's service bridge BVI (a loopback it created, found by its tag). */
export async function vppnetBviName(client: VppClient): Promise<string> {
  const ifs = await client.dump(msg.sw_interface_dump, { sw_if_index: ALL, name_filter_valid: false });
  const bvi = ifs.find((i) => i.tag === tags.servicesBvi());
  if (!bvi)
    throw new BenchError(
      'VPPNET_BENCH_SETUP',
      `no interface tagged ${tags.servicesBvi()} after the reconcile`,
    );
  return bvi.interface_name;
}

/** Interface name → the MAC VPP has on it (for packets' destination MAC on NICs). */
export async function interfaceMacs(client: VppClient): Promise<Map<string, string>> {
  const ifs = await client.dump(msg.sw_interface_dump, { sw_if_index: ALL, name_filter_valid: false });
  return new Map(ifs.map((i) => [i.interface_name, i.l2_address]));
}

/** Runs CLI steps in order; ACL indexes printed by `set acl-plugin acl` fill later `{acl:name}`. */
export async function runSteps(client: VppClient, steps: readonly (CliStep | string)[]): Promise<void> {
  const acls = new Map<string, number>();
  for (const s of steps) {
    const step = typeof s === 'string' ? { cmd: s } : s;
    const out = await cli(client, fillAcls(step.cmd, acls));
    if (step.saveAcl !== undefined) {
      const idx = parseAclIndex(out);
      if (idx === undefined)
        throw new BenchError('VPPNET_BENCH_SETUP', `\`${step.cmd}\` printed no "ACL index:": ${out.trim()}`);
      acls.set(step.saveAcl, idx);
    }
  }
}
