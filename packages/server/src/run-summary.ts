import type { RecordStep, RunRecord } from 'reins';
import type { RunEntry } from './run-registry.js';

/**
 * The record of where the run stopped, if it is stopped now: its final record once ended,
 * the paused record (`awaiting_approval`, `pending_approval`) while it waits for its user;
 * `undefined` while it runs.
 */
export function stoppedRecord(entry: RunEntry): RunRecord | Promise<RunRecord> | undefined {
  if (entry.record !== undefined) return entry.record;
  // Paused: the log is closed at the pause, so `result` is this pause's record (built once);
  // ended (a run read back from the store, before its entry notes the record): the final one.
  return entry.feed.phase === 'running' ? undefined : entry.run.result;
}

/** What a cancel answers: the run's status and its last completed step. */
export interface RunSummary {
  readonly run_id: string;
  readonly status: string;
  readonly steps_completed: number;
  readonly last_step: RecordStep | null;
}

/** `record`: where the run stopped (see `stoppedRecord`); `undefined` while it runs. */
export function runSummary(entry: RunEntry, record: RunRecord | undefined = entry.record): RunSummary {
  if (record === undefined) {
    return {
      run_id: entry.runId,
      status: 'running',
      steps_completed: completedSteps(entry),
      last_step: null,
    };
  }
  // A cancelled step (an act without its observe) is not completed: report the last step before it.
  const done = record.steps.filter((s) => s.index <= record.model_steps);
  return {
    run_id: entry.runId,
    status: record.status,
    steps_completed: record.model_steps,
    last_step: done.at(-1) ?? null,
  };
}

/** The live view of a run that has not ended (`GET /v1/runs/:id` while running). */
export function liveState(entry: RunEntry): Record<string, unknown> {
  const first = entry.events[0];
  return {
    run_id: entry.runId,
    agent: entry.agent,
    status: 'running',
    query: first?.type === 'start' ? first.query : undefined,
    started_at: first === undefined ? undefined : new Date(first.at).toISOString(),
    steps_completed: completedSteps(entry),
    last_event_id: entry.events.length - 1,
    steps: entry.events.flatMap((e) =>
      e.type === 'step' && e.phase !== 'progress'
        ? [
            {
              index: e.index,
              phase: e.phase,
              act_id: 'actId' in e ? e.actId : undefined,
              duration_ms: e.durationMs,
            },
          ]
        : [],
    ),
  };
}

/** Model steps whose reason (and acts, if any) have all been observed. */
function completedSteps(entry: RunEntry): number {
  let completed = 0;
  let open = 0;
  let index = 0;
  for (const e of entry.events) {
    if (e.type !== 'step' || e.phase === 'progress') continue;
    if (e.index !== index) {
      if (open === 0 && index > 0) completed = index;
      index = e.index;
      open = 0;
    }
    if (e.phase === 'act') open++;
    if (e.phase === 'observe') open--;
  }
  return completed;
}
