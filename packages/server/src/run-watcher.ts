import type { Tracer } from '@opentelemetry/api';
import type { RunEvent } from 'reins';
import { logRunEvent, type Logger } from './logging.js';
import type { ServerMetrics } from './metrics.js';
import type { ModelHealth } from './health.js';
import type { RunEntry } from './run-registry.js';
import type { RunHold } from './run-hold.js';
import { isPause } from './run-feed.js';
import { RunSpans } from './run-spans.js';
import { modelCallOf } from './model-call-event.js';
import type { RunTraceIds } from './run-trace-ids.js';

export interface WatchEnv {
  readonly metrics: ServerMetrics;
  readonly tracer: Tracer;
  /** The id generator of the tracer's SDK (`startTracingFromEnv`): runs' trace ids are chosen at admission. */
  readonly traceIds?: RunTraceIds | undefined;
  readonly logger: Logger;
  readonly modelHealth: ModelHealth;
  /** Events one run may log before the server cancels it (bounds the log's memory). */
  readonly maxEventsPerRun: number;
}

/**
 * Follows one run from its first event to its final `done` (through its pauses) and derives everything else from the
 * events: metrics, spans, log lines, the run's share of the limits (`hold`: each model call
 * charged, the slot given back at a pause and taken again after it, settled at the end), model
 * health. One watcher per run, independent of clients, so evidence does not depend on anyone listening.
 */
export async function watchRun(
  entry: RunEntry,
  hold: RunHold,
  env: WatchEnv,
  fromSeq = 0,
  until: 'stop' | 'end' = 'end',
): Promise<void> {
  // Each line names its run itself (`logRunEvent`, and the two below): bound here too, every line held `runId` twice.
  const base = env.logger.child({ agent: entry.agent });
  // Lines about the run carry its trace id (and its run span's id once that has started here).
  let log = entry.traceId === undefined ? base : base.child({ trace_id: entry.traceId });
  const spans = new RunSpans(env.tracer, {
    traceId: entry.traceId,
    traceIds: env.traceIds,
    parent: entry.traceParent,
  });
  let spanned = false;
  // act id → tool name, for the observe events (they carry the act id, not the tool).
  const tools = new Map<string, string>();
  const { runsInFlight, runsPaused } = env.metrics;
  // A run rebuilt at a pause (its history ends with `done {awaiting_…}`: an approval or an answer
  // on a worker, a restart) is watched as paused: its hold has no slot yet, and the first event
  // after the pause takes one (else an approved run went on without counting as running).
  const last = fromSeq > 0 ? entry.events[fromSeq - 1] : undefined;
  let paused = last?.type === 'done' && isPause(last.status);
  if (paused) runsPaused.inc();
  else runsInFlight.inc();
  let capped = false;
  try {
    // Through every pause to the end: the log goes on after a `done {awaiting_…}`.
    // A run rebuilt after a restart is watched from where its history ends: its past was counted then.
    // A worker of the shared mode watches to the next pause it sees (then it lets go of the run).
    for await (const event of entry.feed.follow(fromSeq, 'end')) {
      if (entry.released) break; // let go of: what follows in memory was not stored
      if (paused) {
        paused = false;
        void hold.resume();
        runsPaused.dec();
        runsInFlight.inc();
      }
      observeOne(event);
      if (event.type === 'done' && isPause(event.status)) {
        paused = true;
        void hold.pause();
        runsInFlight.dec();
        runsPaused.inc();
        if (until === 'stop') break;
      }
      if (!capped && event.seq + 1 > env.maxEventsPerRun) {
        capped = true;
        log.warn(
          { runId: entry.runId, events: event.seq + 1, max: env.maxEventsPerRun },
          'run cancelled: too many events',
        );
        entry.cancel();
      }
    }
  } finally {
    (paused ? runsPaused : runsInFlight).dec();
    // Paused and let go of (shared mode), or handed back: the hold stays for whoever takes the run.
    if (!entry.released && !(paused && until === 'stop')) void hold.end();
    spans.detach(entry.events.at(-1)?.at ?? Date.now()); // stopped watching before the end (no-op after it)
  }

  function observeOne(event: RunEvent): void {
    if (event.type === 'step' && event.phase === 'act') tools.set(event.actId, event.tool);
    try {
      env.metrics.observe(entry.agent, event, tools);
      // Let go of (`forgotten`): what follows (a cancel in memory) is not the run's stored story.
      if (entry.forgotten) spans.detach(event.at);
      else spans.observe(event);
      if (!spanned) traced(spans.ids); // at `start`, or at the first event of a rebuilt run
      env.modelHealth.observe(event);
      logRunEvent(log, event);
    } catch (thrown) {
      // An observer's bug must not stop the others, nor the count below.
      log.error({ runId: entry.runId, err: thrown }, 'run observer failed');
    }
    if (modelCallOf(event) !== undefined) void hold.charge(1); // a planner's plan too
    if (event.type === 'step' && event.phase === 'observe') tools.delete(event.actId);
  }

  /** Once, at the first event (`start`, or the first of a rebuilt run): untraced, nothing more per event. */
  function traced(ids: RunSpans['ids']): void {
    spanned = true;
    if (ids === undefined) return;
    entry.traceId = ids.traceId; // the trace the spans went to (an SDK without `traceIds` chose it)
    log = base.child({ trace_id: ids.traceId, span_id: ids.spanId });
  }
}
