#!/usr/bin/env node
/**
 * vppnet: the operator's CLI.
 *   vppnet plan   [--config FILE] [--vpp SOCKET] [--json] [--verbose]
 *   vppnet status [--config FILE] [--vpp SOCKET] [--json]
 *   vppnet version
 *   vppnet install-cni --source FILE --dest DIR [--name vppnet-cni]
 * Without --config, plan uses the bundled example (examples/hypervisor-1.yaml).
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfigFile } from '../config/load.js';
import { ConfigError } from '../config/validate.js';
import { configReferenceMarkdown } from '../config/schema.js';
import { linuxHostLinks } from '../agent/host-links.js';
import { hostLinkOwner } from '../netns/link-owner.js';
import { planFresh, reconcile, type SrGlobalsStore } from '../agent/reconciler.js';
import { DEFAULT_STATE_DIR } from '../agent/agent-flags.js';
import { SR_GLOBALS_FILE, SrGlobalsFileStore } from '../agent/sr-globals-file-store.js';
import path from 'node:path';
import { VppClient, DEFAULT_SOCKET_PATH } from '../vpp/client/vpp-client.js';
import { formatPlan, planToJson } from './format-plan.js';
import { INSTALL_CNI_USAGE, installCniCommand } from './install-cni.js';

export const EXAMPLE_CONFIG = fileURLToPath(new URL('../../../examples/hypervisor-1.yaml', import.meta.url));

const USAGE = `usage:
  vppnet plan   [--config FILE] [--vpp SOCKET] [--state-dir DIR] [--json] [--verbose]
      the ordered VPP operations for a fresh VPP, or with --vpp the diff against a live one;
      changes nothing
  vppnet status [--config FILE] [--vpp SOCKET] [--json]
      what vppnet owns in a live VPP, and whether it matches the config
  vppnet version
${INSTALL_CNI_USAGE}`;

export async function main(argv: readonly string[], out: NodeJS.WritableStream = process.stdout): Promise<number> {
  const [command, ...rest] = argv;
  // Its own options (--source, --dest, --name), which the other commands do not take.
  if (command === 'install-cni') return installCniCommand(rest, out);
  const { values } = parseArgs({
    args: [...rest],
    options: {
      config: { type: 'string' },
      vpp: { type: 'string' },
      json: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      'state-dir': { type: 'string', default: DEFAULT_STATE_DIR },
    },
    allowPositionals: false,
  });
  const write = (s: string): void => void out.write(s.endsWith('\n') ? s : `${s}\n`);
  switch (command) {
    case 'plan': {
      const configPath = values.config ?? EXAMPLE_CONFIG;
      const config = await loadConfigFile(configPath);
      if (values.vpp === undefined) {
        const plan = planFresh(config);
        if (values.json) write(JSON.stringify(planToJson(plan), null, 2));
        else write(`vppnet plan: ${configPath} against a fresh VPP (no VPP contacted)\n\n${formatPlan(plan, { verbose: values.verbose })}`);
        return 0;
      }
      const vppSocket = values.vpp;
      return await withVpp(vppSocket, async (client) => {
        const { plan } = await reconcile(config, { client, host: linuxHostLinks(hostLinkOwner(vppSocket)), globals: agentGlobals(values['state-dir']), planOnly: true });
        if (values.json) write(JSON.stringify(planToJson(plan), null, 2));
        else write(`vppnet plan: ${configPath} against the VPP at ${values.vpp}\n\n${formatPlan(plan, { verbose: values.verbose })}`);
        return 0;
      });
    }
    case 'status': {
      const socket = values.vpp ?? DEFAULT_SOCKET_PATH;
      const config = await loadConfigFile(values.config ?? EXAMPLE_CONFIG);
      return await withVpp(socket, async (client) => {
        const version = await client.call((await import('../vpp/messages/index.js')).msg.show_version, {});
        const { plan, owned } = await reconcile(config, { client, host: linuxHostLinks(hostLinkOwner(socket)), globals: agentGlobals(values['state-dir']), planOnly: true });
        const summary = {
          vpp: { socket, version: version.version, pid: client.vppPid },
          owned: Object.fromEntries([...owned].sort()),
          inSync: plan.ops.length === 0,
          pendingOps: plan.ops.length,
        };
        if (values.json) write(JSON.stringify(summary, null, 2));
        else {
          write(`VPP ${summary.vpp.version} (pid ${summary.vpp.pid}) at ${socket}`);
          write('objects vppnet owns:');
          for (const [kind, n] of Object.entries(summary.owned)) write(`  ${kind.padEnd(16)} ${n}`);
          write(summary.inSync ? 'in sync with the config' : `${plan.ops.length} operations away from the config (see vppnet plan --vpp ${socket})`);
        }
        return 0;
      });
    }
    case 'config-reference':
      write(configReferenceMarkdown());
      return 0;
    case 'version':
      write('vppnet 0.1.0 (VPP API 26.06)');
      return 0;
    default:
      process.stderr.write(`${USAGE}\n`);
      return command === undefined || command === 'help' || command === '--help' ? 0 : 2;
  }
}

/**
 * What the agent on this node remembers of the SRv6 globals (they cannot be read from VPP), read
 * only; without it a plan would always show the hop limit as to be set.
 */
function agentGlobals(stateDir: string): SrGlobalsStore {
  return new SrGlobalsFileStore(path.join(stateDir, SR_GLOBALS_FILE), undefined, { readOnly: true });
}

async function withVpp(socket: string, fn: (client: VppClient) => Promise<number>): Promise<number> {
  const client = new VppClient({ socketPath: socket, clientName: 'vppnet-cli', healthCheckIntervalMs: 0 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === (await import('node:fs')).realpathSync(process.argv[1])) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      if (err instanceof ConfigError) process.stderr.write(`vppnet: ${err.message}\n`);
      else process.stderr.write(`vppnet: ${(err as Error).message}\n`);
      process.exit(1);
    },
  );
}
