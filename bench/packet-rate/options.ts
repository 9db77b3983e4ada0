/** Command-line options of bench/packet-rate (pure: parsed and validated here, used elsewhere). */
import { parseArgs } from 'node:util';
import { IMIX, SIZE_64, type SizeClass } from './streams.js';
import { PATH_IDS, type ConfigKind, type PathId } from './paths.js';
import type { Pick } from './metrics.js';
import { BenchError } from './vpp-checks.js';

export interface Options {
  readonly help: boolean;
  readonly mode: 'pg' | 'nic';
  /** Seconds between `clear runtime` and `show runtime`. */
  readonly duration: number;
  /** Seconds of traffic before the window (NAT sessions made, caches warm). */
  readonly warmup: number;
  readonly sizes: readonly SizeClass[];
  readonly paths: readonly PathId[];
  /** The configurations whose paths are measured (the baseline goes with its path). */
  readonly configs: readonly MeasuredConfig[];
  readonly flows: number;
  readonly repeat: number;
  /** Which of the repeated runs is reported. */
  readonly pick: Pick;
  readonly json: string | undefined;
  readonly svg: string | undefined;
  readonly strict: boolean;
  readonly anyVersion: boolean;
  readonly nic: NicOptions;
}

export interface NicOptions {
  readonly vmIf: string | undefined;
  readonly underlayIf: string | undefined;
  readonly vm2If: string | undefined;
  readonly podIf: string | undefined;
  /** MAC of the generator's ports: what VPP sends to (VMs, underlay gateway, pod). */
  readonly peerMac: string;
  readonly program: 'vppnet' | 'hand' | 'baseline' | undefined;
  readonly collectSeconds: number | undefined;
  /** Labels for a collected window. */
  readonly path: PathId | undefined;
  readonly config: 'vppnet' | 'hand' | 'baseline' | undefined;
  readonly sizeLabel: string | undefined;
  readonly egressIf: string | undefined;
}

/** The configurations `--configs` chooses from. */
export const MEASURED_CONFIGS = ['vppnet', 'hand', 'hand-checks'] as const satisfies readonly ConfigKind[];
export type MeasuredConfig = (typeof MEASURED_CONFIGS)[number];

/** Whether a configuration's paths are measured (the baseline's whenever its path is selected). */
export function measuresConfig(opts: { readonly configs: Options['configs'] }, config: ConfigKind): boolean {
  return config === 'baseline' || (opts.configs as readonly ConfigKind[]).includes(config);
}

export const USAGE = `bench/packet-rate: packets per second of vppnet's datapaths on a real VPP 26.06

  VPP_API_SOCKET=/run/vpp/api.sock npm run bench:packet-rate -- [options]

pg mode (default): creates packet-generator interfaces, programs the paths with vppnet's
reconciler and the same paths by hand through the CLI, without and with vppnet's source checks
(hand, hand-checks), drives each with VPP's packet generator.
  --duration S          measurement window per run, seconds (default 10)
  --warmup S            traffic before the window, seconds (default 2)
  --sizes LIST          64,imix (default both)
  --paths LIST          ${PATH_IDS.join(',')} (default all)
  --configs LIST        ${MEASURED_CONFIGS.join(',')} (default all; hand-checks: the hand
                        paths with vppnet's source checks, a second verdict table)
  --flows N             UDP source ports per stream (default 256)
  --repeat N            runs per measurement, alternating the configurations (default 1)
  --pick best|median    which run is reported (default best: the fastest)
  --json FILE           write every figure, per-node breakdowns included, as JSON
  --svg FILE            write a bar chart of Mpps per path
  --strict              exit 3 when vppnet misses its target (10 % below the hand
                        configuration, 5 % on the IPv6 paths) or was not measured; judged
                        against hand (without checks), not hand-checks
  --any-version         measure a VPP other than 26.06

--nic mode: real NICs and an external traffic generator.
  --nic --vm-if IF --underlay-if IF [--vm2-if IF] [--pod-if IF] [--peer-mac MAC]
                        print the startup.conf, vppnet config, hand CLI and traffic to send
  --program vppnet|hand|baseline
                        also configure the VPP (a fresh one) that way
  --collect-seconds S   clear runtime, wait S seconds while you drive traffic, report
  --path P --config vppnet|hand|baseline --size LABEL --egress-if IF
                        what the collected window was (labels, and the egress interface)
`;

function positive(name: string, v: string | undefined, dflt: number, integer = false): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new BenchError(
      'VPPNET_BENCH_USAGE',
      `--${name} must be a positive ${integer ? 'integer' : 'number'}, not ${JSON.stringify(v)}`,
    );
  }
  return n;
}

function list<T extends string>(
  name: string,
  v: string | undefined,
  allowed: readonly T[],
  dflt: readonly T[],
): T[] {
  if (v === undefined) return [...dflt];
  const items = v
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s.length > 0);
  const bad = items.filter((i) => !(allowed as readonly string[]).includes(i));
  if (bad.length > 0 || items.length === 0)
    throw new BenchError(
      'VPPNET_BENCH_USAGE',
      `--${name}: ${bad.join(',') || '(empty)'} not one of ${allowed.join(', ')}`,
    );
  return [...new Set(items)] as T[];
}

function oneOf<T extends string>(name: string, v: string | undefined, allowed: readonly T[]): T | undefined {
  if (v === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(v))
    throw new BenchError('VPPNET_BENCH_USAGE', `--${name} must be one of ${allowed.join(', ')}`);
  return v as T;
}

export function parseOptions(argv: readonly string[]): Options {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        help: { type: 'boolean', short: 'h' },
        duration: { type: 'string' },
        warmup: { type: 'string' },
        sizes: { type: 'string' },
        paths: { type: 'string' },
        configs: { type: 'string' },
        flows: { type: 'string' },
        repeat: { type: 'string' },
        pick: { type: 'string' },
        json: { type: 'string' },
        svg: { type: 'string' },
        strict: { type: 'boolean' },
        'any-version': { type: 'boolean' },
        nic: { type: 'boolean' },
        'vm-if': { type: 'string' },
        'underlay-if': { type: 'string' },
        'vm2-if': { type: 'string' },
        'pod-if': { type: 'string' },
        'peer-mac': { type: 'string' },
        program: { type: 'string' },
        'collect-seconds': { type: 'string' },
        path: { type: 'string' },
        config: { type: 'string' },
        size: { type: 'string' },
        'egress-if': { type: 'string' },
      },
    }));
  } catch (e) {
    throw new BenchError('VPPNET_BENCH_USAGE', (e as Error).message);
  }
  const sizeByName: Record<string, SizeClass> = { '64': SIZE_64, imix: IMIX };
  const sizes = list('sizes', values.sizes, ['64', 'imix'], ['64', 'imix']).map(
    (s) => sizeByName[s] as SizeClass,
  );
  const peerMac = values['peer-mac'] ?? '02:00:00:00:ff:01';
  if (!/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i.test(peerMac))
    throw new BenchError('VPPNET_BENCH_USAGE', `--peer-mac ${peerMac} is not a MAC address`);
  const mode = values.nic ? 'nic' : 'pg';
  const nicOnly = [
    'vm-if',
    'underlay-if',
    'vm2-if',
    'pod-if',
    'peer-mac',
    'program',
    'collect-seconds',
    'path',
    'config',
    'size',
    'egress-if',
  ] as const;
  if (mode === 'pg') {
    const misplaced = nicOnly.filter((k) => values[k] !== undefined);
    if (misplaced.length > 0)
      throw new BenchError(
        'VPPNET_BENCH_USAGE',
        `${misplaced.map((k) => `--${k}`).join(', ')} only go with --nic`,
      );
  }
  const opts: Options = {
    help: values.help ?? false,
    mode,
    duration: positive('duration', values.duration, 10),
    warmup: values.warmup === '0' ? 0 : positive('warmup', values.warmup, 2),
    sizes,
    paths: list('paths', values.paths, PATH_IDS, PATH_IDS),
    configs: list('configs', values.configs, MEASURED_CONFIGS, MEASURED_CONFIGS),
    flows: positive('flows', values.flows, 256, true),
    repeat: positive('repeat', values.repeat, 1, true),
    pick: oneOf('pick', values.pick, ['best', 'median'] as const) ?? 'best',
    json: values.json,
    svg: values.svg,
    strict: values.strict ?? false,
    anyVersion: values['any-version'] ?? false,
    nic: {
      vmIf: values['vm-if'],
      underlayIf: values['underlay-if'],
      vm2If: values['vm2-if'],
      podIf: values['pod-if'],
      peerMac: peerMac.toLowerCase(),
      program: oneOf('program', values.program, ['vppnet', 'hand', 'baseline'] as const),
      collectSeconds:
        values['collect-seconds'] === undefined
          ? undefined
          : positive('collect-seconds', values['collect-seconds'], 0),
      path: oneOf('path', values.path, PATH_IDS),
      config: oneOf('config', values.config, ['vppnet', 'hand', 'baseline'] as const),
      sizeLabel: values.size,
      egressIf: values['egress-if'],
    },
  };
  if (opts.flows > 16384)
    throw new BenchError(
      'VPPNET_BENCH_USAGE',
      '--flows must stay below the 16384 NAT sessions per thread vppnet configures',
    );
  if (opts.strict && !(opts.configs.includes('vppnet') && opts.configs.includes('hand')))
    throw new BenchError(
      'VPPNET_BENCH_USAGE',
      '--strict judges vppnet against hand: --configs must include both',
    );
  if (mode === 'nic' && !opts.help && (!opts.nic.vmIf || !opts.nic.underlayIf)) {
    throw new BenchError(
      'VPPNET_BENCH_USAGE',
      '--nic needs --vm-if and --underlay-if (VPP interface names of the two NICs)',
    );
  }
  return opts;
}
