import type { ActStep, EventDraft, ResumeOutcome, RunEvent } from '../events.js';
import type { ModelResult } from '../model.js';
import type { Observation } from '../observation.js';
import type { AnyTool } from '../tool.js';

/** What the replay says about an act of the history. */
export type ReplayedAct =
  /** It completed: its recorded observation stands (the tool is not called again). */
  | { readonly kind: 'observed'; readonly observation: Observation }
  /** It may have run and left no observation, and is not safe to repeat: a person must check. */
  | { readonly kind: 'unknown' }
  /** Run it: a new act, one that never started (its approval came after the restart), or a safe repeat. */
  | undefined;

/**
 * A run rebuilt from its event log after a restart (history is the truth). The run starts
 * again from the top with the same inputs and replays its history instead of redoing it:
 *
 * - the log: each event the run appends that the history already has (matched by identity:
 *   the reason of step 3, the act of plan step s2, the observation of act X, the second
 *   `done` …) is not appended again — the recorded event is handed back and **the caller
 *   uses it** (its act id, question id, plan validation), so the run continues with the
 *   history's ids; live-only progress events are dropped until the history is used up;
 * - the model: the n-th model call of the run gets the n-th recorded reply;
 * - tools: an act with a recorded observation returns it; an act that started and left none
 *   runs again only when its tool is read-only or idempotent (its act id is the key),
 *   otherwise the run stops `outcome_unknown`;
 * - pauses: an approval or question settled in the history settles the same way again.
 *
 * After the history is used up the run simply goes on: the interrupted model call is made again.
 */
export class RunReplay {
  readonly #byKey = new Map<string, RunEvent>();
  readonly #ordinals = new Map<string, number>();
  #unmatched: number;
  readonly #replies: ModelResult[] = [];
  #nextReply = 0;
  readonly #observations = new Map<string, Observation>();
  readonly #acts = new Set<string>();
  readonly #approvalAsked = new Set<string>();
  /** Acts approved at least once in the history (they may have started). */
  readonly #approved = new Set<string>();
  /** How each pause of an act (or question) was settled, in order: a fallback's approval shares its primary's act id. */
  readonly #outcomes = new Map<string, ResumeOutcome[]>();
  /** Called once, when the history is used up or the run appends its first new event. */
  onFinished: () => void = () => undefined;
  #finished = false;
  /** Called when an act's outcome is unknown: the run stops (`outcome_unknown`). */
  onUnknown: () => void = () => undefined;
  /** The recorded `start` event's time: the run's durations count from it. */
  readonly startedAt: number | undefined;
  /** Milliseconds the run spent running (not paused) before it was interrupted. */
  readonly activeMs: number;
  /** The `seq` of the history's last event that is not live-only: where the run stood. */
  readonly lastSeq: number;

  constructor(readonly history: readonly RunEvent[]) {
    const ordinals = new Map<string, number>();
    let lastSeq = -1;
    for (const event of history) {
      if (isLiveOnly(event)) continue;
      lastSeq = event.seq;
      const key = keyOf(event, ordinals);
      this.#byKey.set(key, event);
      this.#collect(event);
    }
    this.lastSeq = lastSeq;
    this.#unmatched = this.#byKey.size;
    if (this.#unmatched === 0) this.#finished = true;
    const first = history[0];
    this.startedAt = first?.type === 'start' ? first.at : undefined;
    this.activeMs = activeMs(history);
  }

  /** True until every recorded event has been matched again. */
  get replaying(): boolean {
    return this.#unmatched > 0;
  }

  /**
   * The recorded event for `draft`, if the history has it (then it is not appended again);
   * `'drop'` for a live-only event while the history is being replayed; `undefined` for a new event.
   */
  match(draft: EventDraft): RunEvent | 'drop' | undefined {
    if (this.#unmatched === 0) return this.#finish();
    if (isLiveOnly(draft)) return 'drop';
    const key = keyOf(draft, this.#ordinals);
    const recorded = this.#byKey.get(key);
    if (recorded === undefined) return this.#finish();
    this.#byKey.delete(key);
    if (--this.#unmatched === 0) this.#finish();
    return recorded;
  }

  #finish(): undefined {
    if (!this.#finished) {
      this.#finished = true;
      this.onFinished();
    }
    return undefined;
  }

  /** The next recorded model reply, while there is one. */
  nextReply(): ModelResult | undefined {
    return this.#replies[this.#nextReply++];
  }

  /** What to do with act `actId` of `tool` (see `ReplayedAct`). */
  act(actId: string, tool: AnyTool): ReplayedAct {
    const observation = this.#observations.get(actId);
    if (observation !== undefined) return { kind: 'observed', observation };
    if (!this.#acts.has(actId)) return undefined;
    // Asked for approval and not approved in the history: it cannot have started before.
    if (this.#approvalAsked.has(actId) && !this.#approved.has(actId)) return undefined;
    return tool.readOnly || tool.idempotent === true ? undefined : { kind: 'unknown' };
  }

  /**
   * How the next pause of act `actId` (its approval, then its fallback's) or the question
   * `questionId` was settled in the history; each recorded outcome is handed out once.
   */
  outcome(key: string): ResumeOutcome | undefined {
    return this.#outcomes.get(key)?.shift();
  }

  #collect(event: RunEvent): void {
    switch (event.type) {
      case 'step':
        if (event.phase === 'reason') {
          this.#replies.push({
            ok: true,
            text: event.raw,
            usage: event.usage,
            model: event.model,
            ...(event.toolCalls === undefined ? {} : { toolCalls: event.toolCalls }),
          });
        } else if (event.phase === 'plan' && event.model !== undefined) {
          this.#replies.push({
            ok: true,
            text: event.raw,
            usage: event.usage ?? { inputTokens: 0, outputTokens: 0 },
            model: event.model,
          });
        } else if (event.phase === 'act') this.#acts.add(event.actId);
        else if (event.phase === 'observe') this.#observations.set(event.actId, event.observation);
        return;
      case 'approval':
        this.#approvalAsked.add(event.actId);
        return;
      case 'resume': {
        const key = event.actId ?? event.questionId;
        if (key === undefined) return;
        const outcomes = this.#outcomes.get(key);
        if (outcomes === undefined) this.#outcomes.set(key, [event.outcome]);
        else outcomes.push(event.outcome);
        if (event.actId !== undefined && event.outcome.kind === 'approved') this.#approved.add(event.actId);
        return;
      }
      default:
        return;
    }
  }
}

/** Progress events (model deltas, tool progress and spans, node traces) are live-only. */
function isLiveOnly(event: { readonly type: string; readonly phase?: string }): boolean {
  return event.type === 'step' && event.phase === 'progress';
}

/**
 * An event's identity within its run, the same for the recorded event and for the draft the
 * replayed run makes again: steps by index, acts by their place in the step (or plan step id),
 * observations by act id, approvals and resumes by their order per act id, a `done` by its
 * order among those of its status, everything else by its order among its kind.
 */
function keyOf(event: EventDraft | RunEvent, ordinals: Map<string, number>): string {
  const next = (kind: string): string => {
    const n = ordinals.get(kind) ?? 0;
    ordinals.set(kind, n + 1);
    return `${kind}#${n}`;
  };
  switch (event.type) {
    case 'step':
      switch (event.phase) {
        case 'reason':
          return `reason:${event.index}`;
        case 'plan':
          return `plan:${event.version}`;
        case 'act':
          return event.planStepId === undefined
            ? next(`act:${event.index}`)
            : `act:${event.index}:${event.planStepId}`;
        case 'observe':
          return `observe:${event.actId}`;
        default:
          return next('progress');
      }
    // In order per act: a fallback that needs approval is asked under its primary's act id.
    case 'approval':
      return next(`approval:${event.actId}`);
    case 'resume':
      return next(`resume:${event.actId ?? event.questionId ?? ''}`);
    // By status: a run that ends where its history paused does not take that pause for its end.
    case 'done':
      return next(`done:${event.status}`);
    default:
      return next(event.type);
  }
}

/** Time the run spent running before its last event: from `start` or a `resume` to the next pause or the end. */
function activeMs(history: readonly RunEvent[]): number {
  let total = 0;
  let from: number | undefined;
  for (const event of history) {
    if (event.type === 'start' || event.type === 'resume') from ??= event.at;
    if (event.type === 'done' && from !== undefined) {
      total += event.at - from;
      from = undefined;
    }
  }
  const last = history.at(-1);
  if (from !== undefined && last !== undefined) total += last.at - from;
  return total;
}

/** An act event's id (for callers that hand back the logged event). */
export function actIdOf(event: RunEvent): string {
  return (event as ActStep).actId;
}
