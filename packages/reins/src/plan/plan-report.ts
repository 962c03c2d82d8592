import type { StartEvent } from '../events.js';
import type { Model } from '../model.js';
import type { Degraded } from '../observation.js';
import type { EventLog } from '../loop/event-log.js';
import { startDraft } from '../loop/step-events.js';
import { inputCleaned, userInputBlock } from '../sanitize/user-input.js';
import type { PlanState } from './nodes.js';
import type { RunnerSetup } from './plan-options.js';

/** The `start` event of a plan run: its agent, model, tools, limits and what was cleaned. */
export function planStartDraft(setup: RunnerSetup, model: Model): StartEvent {
  const { options } = setup;
  return startDraft({
    agent: options.agent ?? 'plan',
    model,
    query: options.query,
    tools: setup.names,
    limits: setup.limits,
    timeouts: setup.timeouts,
    conversationId: options.conversationId,
    maxStepsAuto: setup.maxStepsAuto,
    inputCleaned: inputCleaned(userInputBlock(options.query).markers),
  });
}

/**
 * The `progress` event of each plan node that ran (from `startedAt` to `endedAt`), numbered
 * with the run's current model step; nothing once the log has closed.
 */
export function nodeTracer(
  log: EventLog,
  stepIndex: () => number,
): (node: string, startedAt: number, endedAt: number, ok: boolean) => void {
  return (node, startedAt, endedAt, ok) => {
    if (log.closed) return;
    log.append(
      {
        type: 'step',
        phase: 'progress',
        source: 'node',
        node,
        ok,
        index: stepIndex(),
        startedAt,
        endedAt,
        durationMs: endedAt - startedAt,
      },
      endedAt,
    );
  };
}

/** The fallbacks that answered for failing tools in a plan's outcomes (undefined: none). */
export function degradedOf(state: PlanState): Degraded[] | undefined {
  const found = state.outcomes.flatMap((o) =>
    o.observation?.degraded === undefined ? [] : [o.observation.degraded],
  );
  return found.length === 0 ? undefined : found;
}
