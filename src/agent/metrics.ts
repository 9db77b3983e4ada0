/**
 * The agent's Prometheus metrics, in a registry of its own: the global default registry would
 * mix in whatever else the process loads and would make two agents in one test process collide.
 *
 * Op and VPP request metrics come from the diagnostics channels the executor and the VPP client
 * publish on, so neither needs to know about Prometheus. Those channels are process-wide: in a
 * process with several VPP clients (tests, never the agent), every client's requests count here.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DropCounts } from '../dataplane/drop-counters.js';
import { vmPortOfRatePolicer } from '../dataplane/keys.js';
import type { PolicerCounts } from '../dataplane/policer-counters.js';
import { OP_CHANNEL, type OpDiagnostic } from '../reconcile/executor.js';
import { ATTACHMENT_CHANNEL, type AttachmentDiagnostic } from '../attachments/attachment-timing.js';
import type { ConnectionState } from '../vpp/client/connection-state.js';
import type { RequestDiagnostic } from '../vpp/client/vpp-client.js';
import { REQUEST_CHANNEL } from '../vpp/client/request-mux.js';
import { VPP_API_RELEASE, VPPNET_VERSION } from '../util/version.js';
import { HistogramTally } from './histogram-tally.js';
import { LabelTally } from './label-tally.js';
import type { ReconcileSummary } from './status.js';

const OP_LABELS = ['action', 'kind', 'outcome'] as const;
const REQUEST_LABELS = ['message', 'outcome'] as const;
/** Where a CNI call's time goes: 1 ms to a minute. */
const ATTACHMENT_BUCKETS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

/** Every connection state, so the gauge shows 0 for the others (a Record catches a new state). */
const CONNECTION_STATES = Object.keys({
  idle: true,
  connecting: true,
  ready: true,
  reconnecting: true,
  closing: true,
  closed: true,
} satisfies Record<ConnectionState, true>) as ConnectionState[];

/** What the datastore gauges show: the view's health, and `rejectedKeys` the keys rejected now. */
export interface DatastoreGauges {
  readonly synced: boolean;
  readonly stale: boolean;
  readonly rejectedKeys?: number;
  /** Valid records the applied config leaves out for a rule across records. */
  readonly leftOut?: number;
}

export class AgentMetrics {
  readonly registry = new Registry();
  readonly #reconcileDuration: Histogram<'outcome'>;
  readonly #reconciles: Counter<'outcome'>;
  /** Counted without prom-client's per-call label string (label-tally.ts). */
  readonly #operations: LabelTally<(typeof OP_LABELS)[number]>;
  /** One observation per VPP request, without prom-client's per-call cost (histogram-tally.ts). */
  readonly #requestDuration: HistogramTally<'message'>;
  readonly #requests: LabelTally<(typeof REQUEST_LABELS)[number]>;
  readonly #connectionState: Gauge<'state'>;
  readonly #owned: Gauge<'kind'>;
  readonly #failing: Gauge<'kind'>;
  readonly #brokenPorts: Gauge;
  readonly #configValid: Gauge;
  readonly #datastoreSynced: Gauge;
  readonly #datastoreStale: Gauge;
  readonly #datastoreRejected: Counter;
  readonly #datastoreRejectedKeys: Gauge;
  readonly #datastoreLeftOut: Gauge;
  readonly #ready: Gauge;
  readonly #drift: Counter;
  readonly #drops: Counter<'reason' | 'family'>;
  /** Undefined, or answering undefined: nothing to read now (the last figures stay). */
  #dropCounts: (() => Promise<DropCounts | undefined>) | undefined;
  #policerCounts: (() => Promise<ReadonlyMap<string, PolicerCounts> | undefined>) | undefined;
  #natSessions: (() => Promise<ReadonlyMap<string, number> | undefined>) | undefined;
  readonly #vmNatSessions: Gauge<'port'>;
  readonly #vmServiceRateDrops: Counter<'port'>;
  readonly #attachmentDuration: Histogram<'op' | 'outcome'>;
  readonly #attachmentPhase: Histogram<'op' | 'phase'>;
  #subscribed = false;
  #datastoreGauges: (() => DatastoreGauges) | undefined;
  #readiness: (() => boolean) | undefined;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    // Which release a series came from, for dashboards across a rolling update; always 1.
    new Gauge({
      name: 'vppnet_build_info',
      help: 'The running release: labels version (vppnet) and vpp_api (the VPP release its API messages are generated from); always 1.',
      labelNames: ['version', 'vpp_api'],
      registers,
    }).set({ version: VPPNET_VERSION, vpp_api: VPP_API_RELEASE }, 1);
    // Read at each scrape, like /readyz: readiness changes with time (a stale store) as well as events.
    this.#ready = new Gauge({
      name: 'vppnet_ready',
      help: 'The /readyz verdict: 1 when the config is valid, VPP is connected and the last reconcile on this connection converged; else 0 (the reasons are in /readyz).',
      registers,
      collect: () => {
        const ready = this.#readiness?.();
        if (ready !== undefined) this.#ready.set(ready ? 1 : 0);
      },
    });
    this.#reconcileDuration = new Histogram({
      name: 'vppnet_reconcile_duration_seconds',
      help: 'Duration of reconcile passes (snapshot, plan, apply).',
      labelNames: ['outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.#reconciles = new Counter({
      name: 'vppnet_reconcile_total',
      help: 'Reconcile passes by outcome: ok, partial (some ops failed or skipped, or resources wait), error.',
      labelNames: ['outcome'],
      registers,
    });
    this.#operations = new LabelTally({
      name: 'vppnet_operations_total',
      help: 'Operations applied to VPP by action, resource kind and outcome.',
      labelNames: OP_LABELS,
      registers,
    });
    this.#requestDuration = new HistogramTally({
      name: 'vppnet_vpp_request_duration_seconds',
      help: 'Round trip of VPP binary API requests, by request message.',
      labelName: 'message',
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
      registers,
    });
    this.#requests = new LabelTally({
      name: 'vppnet_vpp_requests_total',
      help: 'VPP binary API requests by message and outcome (ok, retval, timeout, conn_lost, error).',
      labelNames: REQUEST_LABELS,
      registers,
    });
    this.#connectionState = new Gauge({
      name: 'vppnet_vpp_connection_state',
      help: 'The VPP connection state: 1 for the current state, 0 for the others.',
      labelNames: ['state'],
      registers,
    });
    this.#owned = new Gauge({
      name: 'vppnet_owned_objects',
      help: 'Objects vppnet owns in VPP as of the last reconcile, by kind.',
      labelNames: ['kind'],
      registers,
    });
    this.#failing = new Gauge({
      name: 'vppnet_failing_resources',
      help: 'Resources whose last create, update or delete failed, by kind; each is retried on its own backoff (its attempts and error are in /status). One that stays is a resource VPP keeps refusing.',
      labelNames: ['kind'],
      registers,
    });
    this.#brokenPorts = new Gauge({
      name: 'vppnet_vm_ports_broken',
      help: 'VM ports the last reconcile could not fully program (their names are in /readyz and /status); the node stays Ready.',
      registers,
    });
    this.#configValid = new Gauge({
      name: 'vppnet_config_valid',
      help: '1 when the config file as last read is valid; 0 while it is invalid (the last good config stays in force).',
      registers,
    });
    // Arrow functions: prom-client calls collect with the gauge as `this`.
    const datastoreGauge = (gauge: () => Gauge, of: (h: DatastoreGauges) => number | boolean) => ({
      registers,
      collect: () => {
        const h = this.#datastoreGauges?.();
        if (h) gauge().set(Number(of(h)));
      },
    });
    this.#datastoreSynced = new Gauge({
      name: 'vppnet_datastore_synced',
      help: "Fleet mode: 1 once every range of the node's scope in the datastore has been listed.",
      ...datastoreGauge(
        () => this.#datastoreSynced,
        (h) => h.synced,
      ),
    });
    this.#datastoreStale = new Gauge({
      name: 'vppnet_datastore_stale',
      help: 'Fleet mode: 1 while the datastore cannot be reached (the last good state stays in force in VPP and in memory).',
      ...datastoreGauge(
        () => this.#datastoreStale,
        (h) => h.stale,
      ),
    });
    this.#datastoreRejected = new Counter({
      name: 'vppnet_datastore_rejected_total',
      help: 'Fleet mode: datastore values rejected as invalid (each logged with its key and reason; the last good value stays).',
      registers,
    });
    this.#datastoreRejectedKeys = new Gauge({
      name: 'vppnet_datastore_rejected_keys',
      help: 'Fleet mode: keys whose current value is rejected (listed in /status; their last good value is in force).',
      ...datastoreGauge(
        () => this.#datastoreRejectedKeys,
        (h) => h.rejectedKeys ?? 0,
      ),
    });
    this.#datastoreLeftOut = new Gauge({
      name: 'vppnet_datastore_records_left_out',
      help: "Fleet mode: valid records the applied config leaves out for a rule across records (an endpoint out of its lane or claiming a local port's address, a node record whose locator overlaps another node's); each is in /status and the log with its key and reason.",
      ...datastoreGauge(
        () => this.#datastoreLeftOut,
        (h) => h.leftOut ?? 0,
      ),
    });
    // Read from VPP at each scrape: VPP counts, vppnet only reports (a VPP restart or `clear
    // errors` starts them again from 0, which Prometheus takes as a counter reset).
    this.#drops = new Counter({
      name: 'vppnet_dataplane_drops_total',
      help: "Packets VPP dropped at the tenant edge, from VPP's error counters: reason spoofed_source (a VM port's source check, family ipv4 or ipv6), srv6_outside_fleet (the uplink's SRv6 ingress filter: IPv6 from outside node.srv6.allowedSources), pod_spoofed_source (a service pod's frame or ARP from a MAC or address not its own, family ipv4) or pod_not_allowed (a service pod's packet its input ACL refuses: to a VM unasked, to another pod, from a foreign address, DHCP replies from a pod that is not the DHCP pod; family ipv4 or ipv6) or vm_service_rate (a VM's packets to the metadata, DNS or DHCP address above services.vmLimits.rateKbps, family ipv4 or ipv6 (the IPv6 metadata and DNS addresses of services.ip6); per VM, both families, in vppnet_vm_service_rate_drops_total).",
      labelNames: ['reason', 'family'],
      registers,
      collect: async () => {
        const counts = await this.#dropCounts?.().catch(() => undefined);
        if (counts === undefined) return;
        this.#drops.reset();
        this.#drops.inc({ reason: 'spoofed_source', family: 'ipv4' }, counts.spoofedSource4);
        this.#drops.inc({ reason: 'spoofed_source', family: 'ipv6' }, counts.spoofedSource6);
        this.#drops.inc({ reason: 'srv6_outside_fleet', family: 'ipv6' }, counts.srv6Ingress);
        this.#drops.inc({ reason: 'pod_spoofed_source', family: 'ipv4' }, counts.podSpoofed);
        this.#drops.inc({ reason: 'pod_not_allowed', family: 'ipv4' }, counts.podNotAllowed4);
        this.#drops.inc({ reason: 'pod_not_allowed', family: 'ipv6' }, counts.podNotAllowed6);
        this.#drops.inc({ reason: 'vm_service_rate', family: 'ipv4' }, counts.vmServiceRate4);
        this.#drops.inc({ reason: 'vm_service_rate', family: 'ipv6' }, counts.vmServiceRate6);
      },
    });
    this.#vmServiceRateDrops = new Counter({
      name: 'vppnet_vm_service_rate_drops_total',
      help: "Per VM port: packets to the service addresses its policer dropped (over services.vmLimits.rateKbps and its burst; IPv4 and IPv6 share the one policer), from VPP's policer counters.",
      labelNames: ['port'],
      registers,
      collect: async () => {
        const counts = await this.#policerCounts?.().catch(() => undefined);
        if (counts === undefined) return;
        this.#vmServiceRateDrops.reset();
        for (const [name, c] of counts) {
          const port = vmPortOfRatePolicer(name);
          // A 1R2C policer calls what is over its bucket "violate"; "exceed" stays 0.
          if (port !== undefined) this.#vmServiceRateDrops.inc({ port }, c.exceedPackets + c.violatePackets);
        }
      },
    });
    this.#vmNatSessions = new Gauge({
      name: 'vppnet_vm_service_nat_sessions',
      help: "Per VM port with NAT sessions: the service bridge's NAT44-EI sessions it holds (at most services.vmLimits.natSessions; beyond that its own oldest is reused), from VPP's users.",
      labelNames: ['port'],
      registers,
      collect: async () => {
        const counts = await this.#natSessions?.().catch(() => undefined);
        if (counts === undefined) return;
        this.#vmNatSessions.reset();
        for (const [port, n] of counts) this.#vmNatSessions.set({ port }, n);
      },
    });
    this.#drift = new Counter({
      name: 'vppnet_drift_detected_total',
      help: 'Full passes run by the drift check alone that found VPP different from the desired state and planned changes to repair it (someone else changed VPP, or a change was missed).',
      registers,
    });
    this.#attachmentDuration = new Histogram({
      name: 'vppnet_attachment_duration_seconds',
      help: "vppnet-cni's ADD (attach) and DEL (detach) as the agent serves them, by outcome (ok or the CNI error code).",
      labelNames: ['op', 'outcome'],
      buckets: ATTACHMENT_BUCKETS,
      registers,
    });
    this.#attachmentPhase = new Histogram({
      name: 'vppnet_attachment_phase_seconds',
      help: 'Time of attach/detach calls by phase: queue, netns, vpp_lock (waiting for a reconcile or another pod), vpp, record.',
      labelNames: ['op', 'phase'],
      buckets: ATTACHMENT_BUCKETS,
      registers,
    });
    this.#configValid.set(0);
    this.setConnectionState('idle');
  }

  /** Starts counting ops and VPP requests from the diagnostics channels. */
  listen(): void {
    if (this.#subscribed) return;
    this.#subscribed = true;
    OP_CHANNEL.subscribe(this.#onOp);
    REQUEST_CHANNEL.subscribe(this.#onRequest);
    ATTACHMENT_CHANNEL.subscribe(this.#onAttachment);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text exposition of every metric. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  observeReconcile(
    summary: Pick<ReconcileSummary, 'outcome' | 'durationMs' | 'brokenPorts' | 'triggers' | 'planned'> &
      Partial<Pick<ReconcileSummary, 'kind'>>,
  ): void {
    this.#reconcileDuration.observe({ outcome: summary.outcome }, summary.durationMs / 1000);
    this.#reconciles.inc({ outcome: summary.outcome });
    this.#brokenPorts.set(summary.brokenPorts.length);
    // Only a pass the drift check alone asked for: one coalesced with a config change or a
    // datastore event plans that change, which is no drift.
    const driftOnly = summary.triggers.length > 0 && summary.triggers.every((t) => t === 'drift');
    if (summary.kind !== 'routes' && driftOnly && summary.planned > 0) this.#drift.inc();
  }

  setConnectionState(current: ConnectionState): void {
    for (const state of CONNECTION_STATES) this.#connectionState.set({ state }, state === current ? 1 : 0);
  }

  /** Replaces the owned counts, so a kind vppnet no longer owns disappears. */
  setOwned(owned: ReadonlyMap<string, number>): void {
    this.#owned.reset();
    for (const [kind, count] of owned) this.#owned.set({ kind }, count);
  }

  /** Replaces the failing counts, so a kind with no failing resource left disappears. */
  setFailing(failing: ReadonlyMap<string, number>): void {
    this.#failing.reset();
    for (const [kind, count] of failing) this.#failing.set({ kind }, count);
  }

  setConfigValid(valid: boolean): void {
    this.#configValid.set(valid ? 1 : 0);
  }

  /** Fleet mode: the datastore gauges read `health` at each scrape (staleness has no event). */
  watchDatastore(health: () => DatastoreGauges): void {
    this.#datastoreGauges = health;
  }

  /** `vppnet_dataplane_drops_total` reads `counts` at each scrape. */
  /** Reads the NAT sessions per VM port at each scrape. */
  watchNatSessions(counts: () => Promise<ReadonlyMap<string, number> | undefined>): void {
    this.#natSessions = counts;
  }

  /** Reads VPP's policer counters at each scrape (the per-VM service rate limits). */
  watchPolicers(counts: () => Promise<ReadonlyMap<string, PolicerCounts> | undefined>): void {
    this.#policerCounts = counts;
  }

  watchDrops(counts: () => Promise<DropCounts | undefined>): void {
    this.#dropCounts = counts;
  }

  /** `vppnet_ready` reads `ready` at each scrape: the same verdict as /readyz. */
  watchReadiness(ready: () => boolean): void {
    this.#readiness = ready;
  }

  countDatastoreRejection(): void {
    this.#datastoreRejected.inc();
  }

  /** Stops listening on the diagnostics channels; the registry stays readable. */
  close(): void {
    if (!this.#subscribed) return;
    this.#subscribed = false;
    OP_CHANNEL.unsubscribe(this.#onOp);
    REQUEST_CHANNEL.unsubscribe(this.#onRequest);
    ATTACHMENT_CHANNEL.unsubscribe(this.#onAttachment);
  }

  readonly #onOp = (message: OpDiagnostic): void => {
    this.#operations.inc(message.action, message.kind, message.outcome);
  };

  readonly #onRequest = (message: RequestDiagnostic): void => {
    this.#requestDuration.observe(message.name, message.durationMs / 1000);
    this.#requests.inc(message.name, message.outcome);
  };

  readonly #onAttachment = (m: AttachmentDiagnostic): void => {
    this.#attachmentDuration.observe({ op: m.op, outcome: String(m.outcome) }, m.durationMs / 1000);
    for (const [phase, ms] of Object.entries(m.phasesMs)) {
      this.#attachmentPhase.observe({ op: m.op, phase }, ms / 1000);
    }
  };
}
