import type { RunEvent, Usage } from 'reins';

/** What a run event says of the model call it records. */
export interface ModelCallEvent {
  readonly model: string;
  readonly usage: Usage | undefined;
  readonly durationMs: number;
  readonly phase: 'reason' | 'plan';
}

/**
 * The model call a run event records, or `undefined`: a `reason` step (a ReAct step, a plan
 * run's responder or a planner's question), or a plan version the planner wrote (`model` set; a
 * version patched by code from the user's answer made no call). Quotas, token metrics, model
 * health and stream summaries all count model calls by this one rule.
 */
export function modelCallOf(event: RunEvent): ModelCallEvent | undefined {
  if (event.type !== 'step') return undefined;
  if (event.phase === 'reason') {
    return { model: event.model, usage: event.usage, durationMs: event.durationMs, phase: 'reason' };
  }
  if (event.phase === 'plan' && event.model !== undefined) {
    return { model: event.model, usage: event.usage, durationMs: event.durationMs, phase: 'plan' };
  }
  return undefined;
}
