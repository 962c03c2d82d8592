import type { RunStatus, StopReason } from '../events.js';
import { askUser } from '../plan/ask-user.js';
import { writeStopNotice } from './stop-notice.js';
import type { LoopContext } from './loop-context.js';

/** How the loop ends its log from here (its own counters and usage). */
export interface AskEnding {
  done(status: RunStatus, stopReason?: StopReason): void;
  endAborted(): void;
}

/**
 * A ReAct run's `ask` when it may pause (`clarify` on): `clarify` then `done {awaiting_input}`;
 * the answer (or the configured default) goes into the history and the loop goes on (true).
 * Over the cap of questions or unanswered in time without a default, the run ends `stopped`
 * (`unanswered`) with a notice; a cancel ends it `cancelled` (false for both).
 */
export async function askInLoop(
  ctx: LoopContext,
  question: string,
  said: string,
  end: AskEnding,
): Promise<boolean> {
  const { log, deps, limits, deadline, prompt, clarify } = ctx;
  if (clarify === undefined) return false;
  const asked = await askUser(
    {
      log,
      deps,
      clarifications: clarify.clarifications,
      options: clarify.options,
      defaultTimeoutMs: limits.approvalTtlMs,
      signal: ctx.act.signal,
      deadline,
      pause: () => end.done('awaiting_input'),
    },
    { question, candidates: [] },
  );
  if (asked.kind === 'cancelled') {
    end.endAborted();
    return false;
  }
  if (asked.kind === 'stop') {
    const demo = ctx.model.demo === true;
    const stop = { reason: 'unanswered' as const, limits, query: prompt.query, text: asked.why };
    const text = writeStopNotice(ctx.stopNotice, stop);
    log.append({ type: 'message', text, format: 'structured', intent: 'notice', demo });
    end.done('stopped', 'unanswered');
    return false;
  }
  prompt.rememberAnswer(said, asked.value, asked.defaulted);
  return true;
}
