/**
 * The vppnet-cni command handlers. The plugin is a thin client: it validates, delegates addresses to
 * IPAM, and asks vppnet-agent (which owns VPP and does the privileged netns work) to attach the pod.
 * Both dependencies are injected so tests can fail any step.
 */
import { AgentAnswerError, AgentClient, type AgentApi } from './agent-client.js';
import type {
  AgentInterface,
  AttachRequest,
  AttachRoute,
  AttachResponse,
  AttachmentKey,
} from '../agent-api/protocol.js';
import { parseNetworkConfig, VALID_ATTACHMENTS_KEY, type NetworkConfig } from './config.js';
import { CniError, CniErrorCode, toCniError } from './errors.js';
import { ExecIpam, type IpamDelegate } from './ipam.js';
import { cidrFamily } from '../net/cidr.js';
import { ipLiteralFamily as ipFamily } from '../net/ip-literal.js';
import { EMPTY_RESULT, type CniResult, type ResultDns, type ResultInterface } from './result.js';
import type { CmdArgs, CniHandlers } from './skel.js';
import { UndoStack } from './undo-stack.js';

export interface PluginDeps {
  readonly ipam: IpamDelegate;
  /** One client per invocation, for the socket named in the config. */
  readonly connectAgent: (socketPath: string) => AgentApi;
}

export function createPlugin(deps: Partial<PluginDeps> = {}): CniHandlers {
  const ipam = deps.ipam ?? new ExecIpam();
  const connectAgent = deps.connectAgent ?? ((socketPath: string) => new AgentClient({ socketPath }));

  return {
    async add(args: CmdArgs): Promise<CniResult> {
      const config = parseNetworkConfig(args.stdinData, { cniArgs: args.args });
      const agent = connectAgent(config.agentSocket);
      const key = attachmentKey(args);
      const undo = new UndoStack();
      try {
        const ipamResult = await ipam.add(config, args);
        undo.push('release the IPAM lease', () => ipam.del(config, args));
        // Registered before the call: a timed-out attach may have left something behind, and
        // detaching what does not exist is a no-op for the agent. Not after the agent's own error
        // answer: it has undone its part, and an attachment it refused as existing already (a
        // repeated or concurrent ADD) is another call's, which a detach would tear down.
        let refusedByAgent = false;
        undo.push('detach from the agent', () =>
          refusedByAgent ? Promise.resolve() : agent.detach(key, { waitForAgent: false }),
        );
        const attached = await agent.attach(attachRequest(config, key, ipamResult)).catch((err: unknown) => {
          refusedByAgent = err instanceof AgentAnswerError;
          throw err;
        });
        return buildResult(config, args, ipamResult, attached);
      } catch (err) {
        await undo.unwind(args.log);
        throw err;
      }
    },

    async del(args: CmdArgs): Promise<void> {
      const config = parseNetworkConfig(args.stdinData, { cniArgs: args.args });
      const agent = connectAgent(config.agentSocket);
      // Interface first, then the address: releasing the lease while the pod still holds the address
      // would let IPAM hand it to another pod. If the agent cannot be reached the DEL fails (code 11)
      // and the runtime retries it; both calls succeed when there is nothing left to remove.
      await agent.detach(attachmentKey(args));
      await ipam.del(config, args);
    },

    async check(args: CmdArgs): Promise<void> {
      const config = parseNetworkConfig(args.stdinData, { cniArgs: args.args });
      if (config.prevResult === undefined) {
        throw new CniError(CniErrorCode.INVALID_NETWORK_CONFIG, 'prevResult is required for CHECK');
      }
      await ipam.check(config, args);
      const state = await connectAgent(config.agentSocket).getAttachment(attachmentKey(args));
      checkAgainstPrevResult(config.prevResult, args, state.podInterface);
    },

    async gc(args: CmdArgs): Promise<void> {
      const config = parseNetworkConfig(args.stdinData, { cniArgs: args.args });
      const validAttachments = config.validAttachments;
      if (validAttachments === undefined) {
        throw new CniError(
          CniErrorCode.INVALID_NETWORK_CONFIG,
          `${VALID_ATTACHMENTS_KEY} is required for GC`,
        );
      }
      // The spec asks GC to clean as much as it can and then report: both steps always run.
      const failures: CniError[] = [];
      try {
        await ipam.gc(config, args);
      } catch (err) {
        failures.push(toCniError(err));
      }
      try {
        await connectAgent(config.agentSocket).gc({ network: config.name, validAttachments });
      } catch (err) {
        failures.push(toCniError(err));
      }
      const [first] = failures;
      if (first === undefined) return;
      if (failures.length === 1) throw first;
      throw new CniError(
        first.code,
        'GC failed for IPAM and the agent',
        failures.map((f) => f.message).join('\n'),
      );
    },

    async status(args: CmdArgs): Promise<void> {
      const config = parseNetworkConfig(args.stdinData, { cniArgs: args.args });
      try {
        await connectAgent(config.agentSocket).status({ waitForAgent: false });
      } catch (err) {
        const cniError = toCniError(err);
        if (
          cniError.code === CniErrorCode.PLUGIN_NOT_AVAILABLE ||
          cniError.code === CniErrorCode.PLUGIN_NOT_AVAILABLE_LIMITED_CONNECTIVITY
        ) {
          throw cniError;
        }
        // Whatever stops us from reaching a healthy agent means ADD cannot be served now.
        throw new CniError(CniErrorCode.PLUGIN_NOT_AVAILABLE, cniError.msg, cniError.details);
      }
      await ipam.status(config, args);
    },
  };
}

function attachmentKey(args: CmdArgs): AttachmentKey {
  return { containerId: args.containerId, ifname: args.ifname, netns: args.netns };
}

function attachRequest(config: NetworkConfig, key: AttachmentKey, ipamResult: CniResult): AttachRequest {
  const gatewayOf = (family: 4 | 6): string | undefined =>
    ipamResult.ips.find((ip) => ip.gateway !== undefined && cidrFamily(ip.address) === family)?.gateway;
  // A route without a next hop goes via the gateway of its family, as the reference plugins'
  // ipam.ConfigureIface does; the agent is told explicitly rather than left to guess.
  const routes = ipamResult.routes.map((route): AttachRoute => {
    const family = cidrFamily(route.dst);
    const gw = route.gw ?? (family === 0 ? undefined : gatewayOf(family));
    return gw !== undefined && ipFamily(gw) === family ? { dst: route.dst, gw } : { dst: route.dst };
  });
  return {
    ...key,
    network: config.name,
    ips: ipamResult.ips.map((ip) => ({
      address: ip.address,
      ...(ip.gateway !== undefined && { gateway: ip.gateway }),
    })),
    routes,
    mode: config.mode,
    ...(config.mtu !== undefined && { mtu: config.mtu }),
    ...(config.mac !== undefined && { mac: config.mac }),
  };
}

/** The 1.1.0 result: prevResult (if chained) followed by the agent's interfaces and IPAM's addresses. */
function buildResult(
  config: NetworkConfig,
  args: CmdArgs,
  ipamResult: CniResult,
  attached: AttachResponse,
): CniResult {
  const prev = config.prevResult ?? EMPTY_RESULT;
  const podIndex = attached.interfaces.findIndex(
    (iface) => iface.name === args.ifname && iface.sandbox !== undefined,
  );
  if (podIndex < 0) {
    throw new CniError(
      CniErrorCode.INTERNAL,
      `vppnet-agent did not report the pod interface ${args.ifname}`,
      JSON.stringify(attached.interfaces),
    );
  }
  const interfaceIndex = prev.interfaces.length + podIndex;
  return {
    interfaces: [...prev.interfaces, ...attached.interfaces.map(resultInterface)],
    ips: [...prev.ips, ...ipamResult.ips.map((ip) => ({ ...ip, interface: interfaceIndex }))],
    routes: [...prev.routes, ...ipamResult.routes],
    dns: firstNonEmptyDns(ipamResult.dns, config.dns, prev.dns),
  };
}

function resultInterface(iface: AgentInterface): ResultInterface {
  return {
    name: iface.name,
    ...(iface.mac !== '' && { mac: iface.mac }),
    ...(iface.mtu !== undefined && { mtu: iface.mtu }),
    ...(iface.sandbox !== undefined && { sandbox: iface.sandbox }),
  };
}

function firstNonEmptyDns(...candidates: (ResultDns | undefined)[]): ResultDns {
  return candidates.find((dns) => dns !== undefined && Object.keys(dns).length > 0) ?? {};
}

/** The spec's CHECK: what prevResult says we created must still be there. */
function checkAgainstPrevResult(
  prev: CniResult,
  args: CmdArgs,
  pod: { readonly mac: string; readonly up: boolean; readonly addresses: readonly string[] },
): void {
  const index = prev.interfaces.findIndex(
    (iface) => iface.name === args.ifname && iface.sandbox !== undefined,
  );
  const expected = prev.interfaces[index];
  if (expected === undefined) {
    throw new CniError(
      CniErrorCode.INVALID_NETWORK_CONFIG,
      `prevResult has no interface ${args.ifname} in a sandbox`,
    );
  }
  const problems: string[] = [];
  if (expected.mac !== undefined && expected.mac.toLowerCase() !== pod.mac.toLowerCase()) {
    problems.push(`mac is ${pod.mac}, prevResult says ${expected.mac}`);
  }
  if (!pod.up) problems.push('interface is down');
  const actual = new Set(pod.addresses.map((address) => address.toLowerCase()));
  for (const ip of prev.ips) {
    if (ip.interface === index && !actual.has(ip.address.toLowerCase()))
      problems.push(`address ${ip.address} is missing`);
  }
  if (problems.length > 0) {
    throw new CniError(
      CniErrorCode.INTERNAL,
      `pod interface ${args.ifname} does not match prevResult`,
      problems.join('; '),
    );
  }
}
