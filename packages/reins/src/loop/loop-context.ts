import type { AutoSteps } from '../auto-steps.js';
import type { AnswerFormat } from '../answer-format.js';
import type { DecisionParse } from '../decision/index.js';
import type { RunLimits } from '../limits.js';
import type { Model, ToolSpec } from '../model.js';
import type { ClarifyOptions, Clarifications } from '../plan/clarify.js';
import type { TimeoutHierarchy } from '../timeout-hierarchy.js';
import type { RunDeps } from '../util/deps.js';
import type { ActEnv } from './act-env.js';
import type { Approvals } from './approvals.js';
import type { EventLog } from './event-log.js';
import type { PromptKeeper } from './kept-prompt.js';
import type { PromptBuilder } from './prompt.js';
import type { RunAbort } from './run-abort.js';
import type { StopNoticeWriter } from './stop-notice.js';

/** What a ReAct run's loop works with (`runLoop`), built by `runAgent`. */
export interface LoopContext {
  readonly agent: string;
  readonly conversationId?: string | undefined;
  readonly model: Model;
  readonly specs: readonly ToolSpec[];
  readonly toolNames: readonly string[];
  readonly timeouts: TimeoutHierarchy;
  /** The run's abort state (`act.signal` is the same object). */
  readonly abort: RunAbort;
  readonly prompt: PromptBuilder;
  readonly limits: RunLimits;
  /** `maxSteps: 'auto'`: how the step limit was chosen (for the `start` event). */
  readonly maxStepsAuto?: AutoSteps | undefined;
  readonly act: ActEnv;
  readonly log: EventLog;
  readonly deps: RunDeps;
  /** The run's approvals (a call that needs one pauses the run until its user answers). */
  readonly approvals?: Approvals | undefined;
  /** The run's deadline, paused while the run waits for its user. */
  readonly deadline?: { pause(): void; resume(): void } | undefined;
  /** Opt-in: an `ask` pauses the run for its user's answer instead of ending it. */
  readonly clarify?:
    { readonly clarifications: Clarifications; readonly options: ClarifyOptions } | undefined;
  /** The decision parser (default `parseDecision`; structured reasoning: `parseReasonedDecision`). */
  readonly parse?: ((raw: string) => DecisionParse) | undefined;
  /** The agent's structured answer format: final answers are checked against it. */
  readonly answer?: AnswerFormat | undefined;
  /** The app's words for a stop (e.g. in the question's language); default: the runtime's. */
  readonly stopNotice?: StopNoticeWriter | undefined;
  /** Keeps each model step's exact messages in its `reason` event (absent: the run does not). */
  readonly prompts?: PromptKeeper | undefined;
}

/** Told once when a run's loop has ended, after its timers and listeners are released: its handle. */
export interface LoopEnd {
  loopEnded(): void;
}
