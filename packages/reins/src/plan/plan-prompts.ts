import { KeptPrompt } from '../loop/kept-prompt.js';
import type { ChatMessage, ModelResult, Usage } from '../model.js';
import type { PromptSnapshot } from '../prompt-snapshot.js';

/**
 * A plan run's prompt keeping (the prompt debugger, as `PromptKeeper` for ReAct runs): the
 * messages of its latest model call, handed once to the event that logs that model step —
 * the planner's `plan` version (or its `reason` step when it asks instead), the responder's
 * `reason` step.
 *
 * Each prompt is kept whole (a fresh delta chain, `KeptPrompt` without a previous step): a
 * plan run's model calls build their messages anew, so a delta would find nothing to share,
 * and a whole prompt stays right whichever events a custom node logs in between.
 */
export class PlanPrompts {
  readonly #keep: boolean;
  #latest:
    { readonly step: number; readonly sent: readonly ChatMessage[]; readonly reported: number } | undefined;

  /** @param keep false: the run keeps no prompts (`recordPrompts: false`), `take` gives none. */
  constructor(keep: boolean) {
    this.#keep = keep;
  }

  /** Model step `step` was sent `sent` and answered `result`. */
  called(step: number, sent: readonly ChatMessage[], result: ModelResult): void {
    if (!this.#keep) return;
    const usage = result.usage as Usage | undefined; // a broken adapter may leave it out
    this.#latest = { step, sent, reported: usage?.inputTokens ?? 0 };
  }

  /**
   * The kept prompt of model step `step` (masked and counted when first read), once;
   * undefined when the run keeps no prompts or `step` is not the latest call.
   */
  take(step: number): PromptSnapshot | undefined {
    const latest = this.#latest;
    if (latest?.step !== step) return undefined;
    this.#latest = undefined;
    return KeptPrompt.whole(latest.sent, latest.reported);
  }
}
