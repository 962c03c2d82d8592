import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RunEvent } from 'reins';
import type { RolloutLike } from './server-options.js';
import { driftLabel, type DriftState } from './tool-drift.js';
import { modelCallOf } from './model-call-event.js';
import { isPause } from './run-feed.js';

/**
 * The server's Prometheus series, all derived from run events (plus the fail-open counter
 * and two gauges). Registered on the given registry, by default a new one of its own, so two
 * servers in one process (or a test) never collide on prom-client's global registry.
 */
export class ServerMetrics {
  readonly registry: Registry;
  readonly steps: Counter<'agent' | 'action' | 'status'>;
  readonly stepDuration: Histogram<'agent' | 'phase'>;
  readonly toolErrors: Counter<'tool' | 'code'>;
  readonly runs: Counter<'agent' | 'status'>;
  readonly pauses: Counter<'agent' | 'status'>;
  readonly approvals: Counter<'agent' | 'tool' | 'outcome'>;
  readonly modelTokens: Counter<'model' | 'kind'>;
  readonly quotaFailOpen: Counter<'operation'>;
  readonly runsInFlight: Gauge;
  readonly runsPaused: Gauge;
  readonly openStreams: Gauge;
  readonly runsRecovered: Counter<'how'>;
  readonly runsSwept: Counter;
  readonly runStoreFailures: Counter;
  readonly abandoned: Counter<'stage'>;

  constructor(registry: Registry = new Registry()) {
    this.registry = registry;
    const registers = [registry];
    this.steps = new Counter({
      name: 'reins_steps_total',
      help: 'Actions taken: each tool call by tool and observation status, and each final answer / question (action "final" / "ask").',
      labelNames: ['agent', 'action', 'status'],
      registers,
    });
    this.stepDuration = new Histogram({
      name: 'reins_step_duration_seconds',
      help: 'Duration of reason and plan (model calls) and act→observe (tool call) phases.',
      labelNames: ['agent', 'phase'],
      buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.toolErrors = new Counter({
      name: 'reins_tool_errors_total',
      help: 'Tool observations that were not ok, by tool and error code.',
      labelNames: ['tool', 'code'],
      registers,
    });
    this.runs = new Counter({
      name: 'reins_runs_total',
      help: 'Finished runs by final status (a pause is not an end: see reins_run_pauses_total).',
      labelNames: ['agent', 'status'],
      registers,
    });
    this.pauses = new Counter({
      name: 'reins_run_pauses_total',
      help: 'Times a run stopped to wait for its user, by status (awaiting_approval, awaiting_input).',
      labelNames: ['agent', 'status'],
      registers,
    });
    this.approvals = new Counter({
      name: 'reins_approvals_total',
      help: 'Answered approvals by tool and outcome (approved / declined / expired).',
      labelNames: ['agent', 'tool', 'outcome'],
      registers,
    });
    this.modelTokens = new Counter({
      name: 'reins_model_tokens_total',
      help: 'Model tokens by model and kind (input / output), from reason events.',
      labelNames: ['model', 'kind'],
      registers,
    });
    this.quotaFailOpen = new Counter({
      name: 'reins_quota_fail_open_total',
      help: 'Quota / rate-limit checks that let a request through because the store failed or was slow.',
      labelNames: ['operation'],
      registers,
    });
    this.runsInFlight = new Gauge({
      name: 'reins_runs_in_flight',
      help: 'Runs executing now (not ended, not paused).',
      registers,
    });
    this.runsPaused = new Gauge({
      name: 'reins_runs_paused',
      help: 'Runs paused, waiting for their user.',
      registers,
    });
    this.openStreams = new Gauge({ name: 'reins_sse_streams_open', help: 'Open SSE streams.', registers });
    this.runsRecovered = new Counter({
      name: 'reins_runs_recovered_total',
      help: 'Runs found unfinished in the run store after a restart: resumed, rebuilt (paused), interrupted, or failed to rebuild.',
      labelNames: ['how'],
      registers,
    });
    this.runsSwept = new Counter({
      name: 'reins_runs_swept_total',
      help: 'Ended runs deleted from the run store by the retention sweep (REINS_RUN_RETENTION_DAYS).',
      registers,
    });
    this.runStoreFailures = new Counter({
      name: 'reins_run_store_failures_total',
      help: 'Failed writes of run events to the run store (each is retried, in order).',
      registers,
    });
    this.abandoned = new Counter({
      name: 'reins_abandoned_requests_total',
      help: 'Run requests whose client left before the run started (never started) or while it was being started (cancelled at once).',
      labelNames: ['stage'],
      registers,
    });
  }

  /**
   * `reins_event_loop_delay_seconds{quantile="0.5"|"0.99"|"1"}` (1: the max): how late this
   * process's event loop ran a timer due every `resolutionMs` (`perf_hooks.monitorEventLoopDelay`),
   * over the time since the previous scrape (each scrape starts a new interval). The histogram
   * records each tick's whole interval, so the resolution is subtracted: an idle loop reads ~0.
   * A loop blocked by synchronous work (an SQL statement in this thread, a large JSON) shows here
   * before it shows anywhere else. Returns the function that stops the measuring.
   */
  monitorEventLoop(resolutionMs = 10): () => void {
    const delay = monitorEventLoopDelay({ resolution: resolutionMs });
    delay.enable();
    const seconds = (ns: number): number => Math.max(0, ns / 1e6 - resolutionMs) / 1000;
    new Gauge({
      name: 'reins_event_loop_delay_seconds',
      help: `Event-loop delay since the previous scrape (monitorEventLoopDelay, ${resolutionMs} ms resolution subtracted): quantile 0.5, 0.99 and 1 (max).`,
      labelNames: ['quantile'],
      registers: [this.registry],
      collect() {
        const none = delay.count === 0; // a scrape right after another: no tick yet
        this.set({ quantile: '0.5' }, none ? 0 : seconds(delay.percentile(50)));
        this.set({ quantile: '0.99' }, none ? 0 : seconds(delay.percentile(99)));
        this.set({ quantile: '1' }, none ? 0 : seconds(delay.max));
        delay.reset();
      },
    });
    return () => delay.disable();
  }

  /** Gauges of gradual rollouts, read from their stats at each scrape. */
  watchRollouts(rollouts: Readonly<Record<string, RolloutLike>>): void {
    const registers = [this.registry];
    const gauge = (name: string, help: string, read: (r: RolloutLike) => number): void => {
      new Gauge({
        name,
        help,
        labelNames: ['rollout'],
        registers,
        collect() {
          for (const [rollout, r] of Object.entries(rollouts)) this.set({ rollout }, read(r));
        },
      });
    };
    gauge(
      'reins_rollout_enabled',
      '1 while the candidate gets its share of runs, 0 once switched off.',
      (r) => (r.stats().enabled ? 1 : 0),
    );
    gauge(
      'reins_rollout_error_rate',
      "The candidate's error rate (parse failures, tool errors per step).",
      (r) => r.stats().errorRate,
    );
    gauge(
      'reins_rollout_candidate_steps',
      'Model steps the candidate answered.',
      (r) => r.stats().candidateSteps,
    );
  }

  /**
   * Gauges of the tool definition drift check, read from its last outcome at each scrape:
   * `reins_tool_definition_drift{tool,kind}` (1 for a tool that differs from the approved set,
   * kind `added` / `removed` / `changed` / `changed_unversioned`; 0 with kind `none` for one as
   * approved), `reins_tool_definitions_drifted` (how many differ),
   * `reins_tool_definition_sources_unchecked` (sources that could not be listed: an MCP server
   * down) and `reins_tool_definition_drift_checked_seconds` (when the last check ran).
   */
  watchToolDrift(state: () => DriftState): void {
    const registers = [this.registry];
    const report = () => {
      const s = state();
      return s.kind === 'checked' ? s.report : undefined;
    };
    new Gauge({
      name: 'reins_tool_definition_drift',
      help: '1: the tool definition differs from the approved set (kind added, removed, changed, changed_unversioned); 0: as approved (kind none).',
      labelNames: ['tool', 'kind'],
      registers,
      collect() {
        this.reset();
        const r = report();
        if (r === undefined) return;
        const changed = new Map(r.changes.map((c) => [c.name, driftLabel(c)]));
        for (const tool of r.names) if (!changed.has(tool)) this.set({ tool, kind: 'none' }, 0);
        for (const [tool, kind] of changed) this.set({ tool, kind }, 1);
      },
    });
    new Gauge({
      name: 'reins_tool_definitions_drifted',
      help: 'Tool definitions that differ from the approved set (added, removed or changed), at the last check.',
      registers,
      collect() {
        this.set(report()?.changes.length ?? 0);
      },
    });
    new Gauge({
      name: 'reins_tool_definition_sources_unchecked',
      help: 'Tool sources (MCP servers) whose definitions could not be listed at the last check.',
      registers,
      collect() {
        this.set(report()?.unchecked.length ?? 0);
      },
    });
    new Gauge({
      name: 'reins_tool_definition_drift_checked_seconds',
      help: 'When the tool definition drift check last ran (Unix time; 0: not yet).',
      registers,
      collect() {
        const s = state();
        this.set(s.kind === 'pending' ? 0 : s.at / 1000);
      },
    });
  }

  /** Observes one run event (called by the run watcher for every event of every run). */
  observe(agent: string, event: RunEvent, tools: ReadonlyMap<string, string>): void {
    if (event.type === 'done') {
      if (isPause(event.status)) this.pauses.inc({ agent, status: event.status });
      else this.runs.inc({ agent, status: event.status });
      return;
    }
    if (event.type !== 'step') return;
    const call = modelCallOf(event); // a reason step, or a plan the planner wrote
    if (call !== undefined) {
      this.stepDuration.observe({ agent, phase: call.phase }, call.durationMs / 1000);
      const inputTokens = call.usage?.inputTokens ?? 0;
      const outputTokens = call.usage?.outputTokens ?? 0;
      if (inputTokens > 0) this.modelTokens.inc({ model: call.model, kind: 'input' }, inputTokens);
      if (outputTokens > 0) this.modelTokens.inc({ model: call.model, kind: 'output' }, outputTokens);
    }
    switch (event.phase) {
      case 'reason': {
        const decision = event.decision;
        if (decision === undefined) this.steps.inc({ agent, action: 'final', status: 'raw' });
        else if (decision.kind === 'final' || decision.kind === 'ask')
          this.steps.inc({ agent, action: decision.kind, status: 'ok' });
        return;
      }
      case 'observe': {
        const tool = tools.get(event.actId) ?? 'unknown';
        const { status, error, approval } = event.observation;
        this.steps.inc({ agent, action: tool, status });
        if (approval !== undefined) this.approvals.inc({ agent, tool, outcome: approval.kind });
        this.stepDuration.observe({ agent, phase: 'act' }, event.durationMs / 1000);
        if (status !== 'ok') this.toolErrors.inc({ tool, code: error?.code ?? status.toUpperCase() });
        return;
      }
      default:
        return;
    }
  }
}
