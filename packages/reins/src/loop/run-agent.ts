import type { RunEvent } from '../events.js';
import type { RunLimitsInput } from '../limits.js';
import { chooseLimits } from './run-limits.js';
import type { Model } from '../model.js';
import { ANONYMOUS, type Principal } from '../principal.js';
import type { RunRecord } from '../record.js';
import type { AnyTool } from '../tool.js';
import { withDefaults, type RunDeps } from '../util/deps.js';
import { openRunLog, replayDeadline, replayInto, type DurableRunOptions } from './durable-run.js';
import { PromptKeeper } from './kept-prompt.js';
import { PromptBuilder } from './prompt.js';
import { RunAbort } from './run-abort.js';
import { runLoop } from './run-loop.js';
import { toolSet } from './tool-catalog.js';
import { sharedTimeoutHierarchy } from '../timeout-hierarchy.js';
import type { ToolPolicies } from '../policies/tool-policies.js';
import type { BlobStore } from '../blob-store.js';
import { Approvals, type ApprovalAnswer, type ApprovalDecision, type PendingApproval } from './approvals.js';
import { RunHandle } from './run-handle.js';
import { RunDeadline } from './run-deadline.js';
import { runActEnv } from './act-env.js';
import { defaultBlobStore } from './check-result.js';
import { parseReasonedDecision } from '../decision/structured-reasoning.js';
import { preloadLazyParts } from '../lazy-parts.js';
import {
  Clarifications,
  type ClarifyAnswer,
  type ClarifyAnswerResult,
  type ClarifyOptions,
  type PendingQuestion,
} from '../plan/clarify.js';
import { instructionsWithAnswer, type AnswerFormat } from '../answer-format.js';
import type { StopNoticeWriter } from './stop-notice.js';

export interface RunAgentOptions extends DurableRunOptions {
  readonly query: string;
  readonly model: Model;
  readonly tools: readonly AnyTool[];
  /** The authenticated caller (from the server, never from the model). */
  readonly principal?: Principal;
  /** Overrides of `DEFAULT_LIMITS`; `maxSteps: 'auto'` chooses the step limit from the query (3..12). */
  readonly limits?: RunLimitsInput;
  /** Aborting it cancels the run at once: the in-flight model or tool call is aborted too. */
  readonly signal?: AbortSignal;
  /** Prepended to the system prompt (the agent's role and rules). */
  readonly instructions?: string;
  readonly agent?: string;
  readonly runId?: string;
  readonly deps?: Partial<RunDeps>;
  /**
   * The tools' guards: breakers and concurrency caps that outlast a run, policy overrides,
   * metrics hooks. Default: `defaultToolPolicies`, shared by all runs of the process.
   */
  readonly policies?: ToolPolicies;
  /** Where results over `limits.largeResultBytes` are kept (default: in-process, bounded). */
  readonly blobStore?: BlobStore;
  /**
   * Opt-in: an `ask` decision (or structured reasoning with non-empty `missing_info`) pauses
   * the run (`clarify`, then `done {awaiting_input}`) instead of ending it with a question;
   * `run.answer()` resumes it. Without it an `ask` is the final message (intent `ask`).
   */
  readonly clarify?: ClarifyOptions;
  /**
   * `structured`: decisions carry `"reasoning": {current_goal, known_facts, missing_info,
   * next_action}` (seed 001 §4.2); non-empty `missing_info` is asked for, never guessed.
   */
  readonly decisionFormat?: 'plain' | 'structured';
  /**
   * A structured final answer (e.g. action cards): checked against its schema with one
   * repair; the message carries `data`, or the raw text labeled `format: "raw"`.
   */
  readonly answer?: AnswerFormat<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- any T: the run only hands data back to the format's own functions
  /**
   * The app's words for a stop notice (a limit, a deadline, an unanswered question …), e.g. in
   * the language of the question. Default: the runtime's English notice (`stop.text`).
   */
  readonly stopNotice?: StopNoticeWriter;
  /**
   * Keep the exact messages of each model step (masked like observations, with token counts)
   * in its `reason` event and the record: the prompt debugger. Default true; false keeps none.
   */
  readonly recordPrompts?: boolean;
}

/** A started run: iterate it for live events (each iterator replays from `start`). */
export interface AgentRun extends AsyncIterable<RunEvent> {
  readonly runId: string;
  /** The log so far (append-only). */
  readonly events: readonly RunEvent[];
  /**
   * The record when the run next stops: it ended, or it paused for its user (`status:
   * "awaiting_approval"`; read `result` again after answering). Never rejects.
   */
  readonly result: Promise<RunRecord>;
  /** Cancels the run (status `cancelled`). No model or tool call starts afterwards. */
  cancel(): void;
  /** The call waiting for approval, if the run is paused for one. */
  readonly pendingApproval: PendingApproval | undefined;
  /**
   * Answers the pending approval. Refused as data unless it comes from the run's own user
   * (`by`, from the server's authentication), names the waiting act and the hash of its
   * exact input, and arrives before it expires; each approval is used once.
   */
  approve(decision: ApprovalDecision): ApprovalAnswer;
  /** The question waiting for its user's answer, if the run is paused for one (`awaiting_input`). */
  readonly pendingQuestion: PendingQuestion | undefined;
  /**
   * Answers the pending question. Refused as data unless it names the waiting question,
   * arrives before it expires, comes from the run's own user (when `by` is given) and is a
   * non-blank string; each question is answered once. Resumes the same log.
   */
  answer(answer: ClarifyAnswer): ClarifyAnswerResult;
  /**
   * Follows the log from sequence number `fromSeq` (the SSE `Last-Event-ID` + 1) until the run
   * stops: ends or pauses. Iterating the run itself is `follow(0)`.
   */
  follow(fromSeq: number): AsyncIterableIterator<RunEvent>;
  /**
   * A large result of this run by its reference (`observation.resultRef.ref`); `undefined` when
   * no longer stored, or when the reference is another run's (runs share a blob store).
   */
  readLargeField(ref: string): Promise<unknown>;
  /**
   * Resolves `true` once every event so far is stored (at once for a run without `durable`);
   * `false` when the store has been failing too long (the events were shown, not stored). A
   * server answers an approval or a question only after this: an acknowledged answer is never lost.
   */
  persisted(): Promise<boolean>;
}

/**
 * Starts a bounded ReAct run. Programmer mistakes (duplicate tool names, invalid limits)
 * throw here, synchronously; everything that happens during the run is reported as events.
 */
export function runAgent(options: RunAgentOptions): AgentRun {
  const deps = withDefaults(options.deps);
  preloadLazyParts(); // off the hot path: usually loaded before a reply or a tool first needs them
  const { limits, maxStepsAuto } = chooseLimits(options.limits, options.query, options.history);
  const tools = toolSet(options.tools);
  const { registry, specs, names, needsApproval: mayPause } = tools;
  const timeouts = sharedTimeoutHierarchy(limits, tools, options.tools);
  const runId = options.runId ?? deps.newId();
  const { log, replay } = openRunLog(runId, deps, options);
  const blobStore = options.blobStore ?? defaultBlobStore;

  const abort = new RunAbort();
  abort.follow(options.signal);
  const principal = options.principal ?? ANONYMOUS;
  const approvals = mayPause ? new Approvals(principal, deps.now, deps) : undefined;
  const clarifications =
    options.clarify === undefined ? undefined : new Clarifications(principal, deps.now, deps);
  const act = runActEnv(registry, principal, runId, abort, limits, blobStore, deps, options.policies);
  const model = replayInto(replay, { model: options.model, act, abort, approvals, clarifications });
  const handle = new RunHandle(runId, log, abort, blobStore, approvals, clarifications);
  const startedAt = deps.now(); // the deadline's start and the run's (one clock read)
  // Only a run that can pause (or replays) needs a deadline that can stand still; the others
  // share one timer per deadline length (`QueuedDeadline`).
  let deadline: RunDeadline | undefined;
  if (replay !== undefined || approvals !== undefined || clarifications !== undefined) {
    const onDeadline = (): void => abort.deadlinePassed();
    deadline =
      replay !== undefined
        ? replayDeadline(deps, limits.deadlineMs, replay, onDeadline)
        : new RunDeadline(deps, limits.deadlineMs, onDeadline);
    abort.holdDeadline(deadline);
  } else abort.startDeadline(deps, limits.deadlineMs, startedAt);

  // The loop ends its own log on errors, releases `abort`'s timers and listeners, then tells the handle.
  runLoop(
    {
      agent: options.agent ?? 'react',
      conversationId: options.conversationId,
      model,
      specs,
      toolNames: names,
      timeouts,
      abort,
      prompt: new PromptBuilder(
        options.query,
        specs,
        limits,
        instructionsWithAnswer(options.instructions, options.answer),
      ),
      limits,
      maxStepsAuto,
      log,
      deps,
      approvals,
      deadline,
      clarify: clarifications === undefined ? undefined : { clarifications, options: options.clarify ?? {} },
      parse: options.decisionFormat === 'structured' ? parseReasonedDecision : undefined,
      answer: options.answer,
      stopNotice: options.stopNotice,
      prompts: options.recordPrompts === false ? undefined : new PromptKeeper(),
      act,
    },
    handle,
    startedAt,
  );
  return handle;
}
