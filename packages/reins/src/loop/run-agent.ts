import type { RunEvent } from '../events.js';
import { resolveLimits, type RunLimits } from '../limits.js';
import type { Model } from '../model.js';
import { ANONYMOUS, type Principal } from '../principal.js';
import { buildRunRecord, type RunRecord } from '../record.js';
import type { AnyTool } from '../tool.js';
import { withDefaults, type RunDeps } from '../util/deps.js';
import type { EventLog } from './event-log.js';
import { openRunLog, replayDeadline, replayInto, type DurableRunOptions } from './durable-run.js';
import { PromptBuilder } from './prompt.js';
import { RunAbort } from './run-abort.js';
import { runLoop } from './run-loop.js';
import { RUN_CANCELLED, RUN_DEADLINE } from './abort-reasons.js';
import { toolSet } from './tool-catalog.js';
import { sharedTimeoutHierarchy } from '../timeout-hierarchy.js';
import type { ToolPolicies } from '../policies/tool-policies.js';
import { readLargeField, type BlobStore } from '../blob-store.js';
import { Approvals, type ApprovalAnswer, type ApprovalDecision, type PendingApproval } from './approvals.js';
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

export interface RunAgentOptions extends DurableRunOptions {
  readonly query: string;
  readonly model: Model;
  readonly tools: readonly AnyTool[];
  /** The authenticated caller (from the server, never from the model). */
  readonly principal?: Principal;
  readonly limits?: Partial<RunLimits>;
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
  /** A large result by its reference (`observation.resultRef.ref`); `undefined` when no longer stored. */
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
  const limits = resolveLimits(options.limits);
  const tools = toolSet(options.tools);
  const { registry, specs, names, needsApproval: mayPause } = tools;
  const timeouts = sharedTimeoutHierarchy(limits, tools, options.tools);
  const runId = options.runId ?? deps.newId();
  const { log, replay } = openRunLog(runId, deps, options);
  const blobStore = options.blobStore ?? defaultBlobStore;

  const abort = new RunAbort();
  const cancel = (): void => abort.abort(RUN_CANCELLED);
  const external = options.signal;
  if (external?.aborted) cancel();
  else external?.addEventListener('abort', cancel, { once: true });
  const principal = options.principal ?? ANONYMOUS;
  const approvals = mayPause ? new Approvals(principal, deps.now, deps) : undefined;
  const clarifications =
    options.clarify === undefined ? undefined : new Clarifications(principal, deps.now, deps);
  const onDeadline = (): void => abort.abort(RUN_DEADLINE);
  // Only a run that can pause (or replays) needs a deadline that can stand still (a plain timer is 72 bytes lighter).
  const deadline =
    replay !== undefined
      ? replayDeadline(deps, limits.deadlineMs, replay, onDeadline)
      : approvals === undefined && clarifications === undefined
        ? deps.setTimer(onDeadline, limits.deadlineMs)
        : new RunDeadline(deps, limits.deadlineMs, onDeadline);
  const act = runActEnv(registry, principal, runId, abort, limits, blobStore, deps, options.policies);
  const model = replayInto(replay, { model: options.model, act, abort, approvals, clarifications });

  const cleanup = (): void => {
    if (deadline instanceof RunDeadline) deadline.clear();
    else deps.clearTimer(deadline);
    external?.removeEventListener('abort', cancel);
  };
  const finished = runLoop(
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
      log,
      deps,
      approvals,
      deadline: deadline instanceof RunDeadline ? deadline : undefined,
      clarify: clarifications === undefined ? undefined : { clarifications, options: options.clarify ?? {} },
      parse: options.decisionFormat === 'structured' ? parseReasonedDecision : undefined,
      answer: options.answer,
      act,
    },
    cleanup,
  ); // runLoop ends its own log on errors, and cleans up before it resolves

  return new RunHandle(runId, log, finished, cancel, blobStore, approvals, clarifications);
}

/**
 * The handle `runAgent` (and `runPlanAgent`) returns. `result` builds the record on first
 * access, so a consumer that only follows events never pays for it. A class rather than an
 * object literal: a literal with per-run getter closures is a dictionary-mode object (~450
 * bytes more per run). Internal: not exported from the package root.
 */
export class RunHandle implements AgentRun {
  readonly events: readonly RunEvent[];
  readonly #log: EventLog;
  #result: Promise<RunRecord> | undefined;
  /** `log.stops` when `#result` was made: a resumed run needs a new one. */
  #resultStops = -1;
  readonly #blobStore: BlobStore;
  readonly #approvals: Approvals | undefined;
  readonly #clarifications: Clarifications | undefined;
  /** Settles when the loop has ended and released its timers and listeners. */
  readonly #finished: Promise<void>;

  get pendingApproval(): PendingApproval | undefined {
    return this.#approvals?.pending;
  }

  approve(decision: ApprovalDecision): ApprovalAnswer {
    if (this.#approvals === undefined) {
      return {
        ok: false,
        code: 'NOT_FOUND',
        message: 'no approval is pending for this act (answered, expired or never asked)',
      };
    }
    return this.#approvals.answer(decision);
  }

  get pendingQuestion(): PendingQuestion | undefined {
    return this.#clarifications?.pending;
  }

  answer(answer: ClarifyAnswer): ClarifyAnswerResult {
    if (this.#clarifications === undefined) {
      return {
        ok: false,
        code: 'NOT_FOUND',
        message: 'no question is pending (answered, expired or never asked)',
      };
    }
    return this.#clarifications.answer(answer);
  }

  readLargeField(ref: string): Promise<unknown> {
    return readLargeField(this.#blobStore, ref);
  }

  persisted(): Promise<boolean> {
    return this.#log.persisted();
  }

  constructor(
    readonly runId: string,
    log: EventLog,
    finished: Promise<void>,
    readonly cancel: () => void,
    blobStore: BlobStore,
    approvals: Approvals | undefined,
    clarifications: Clarifications | undefined = undefined,
  ) {
    this.#blobStore = blobStore;
    this.#approvals = approvals;
    this.#clarifications = clarifications;
    this.events = log.published; // the log's own array: live, append-only (stored events only, when durable)
    this.#log = log;
    this.#finished = finished;
  }

  get result(): Promise<RunRecord> {
    const log = this.#log;
    // A run that cannot pause stops once: its record is ready when the loop has finished.
    if (this.#approvals === undefined && this.#clarifications === undefined)
      return (this.#result ??= log.durable
        ? this.#finished.then(() => log.persisted()).then(() => buildRunRecord(log.published))
        : this.#finished.then(() => buildRunRecord(log.events))); // no store: nothing to wait for
    // A running log's stop count grows by one at its next stop; a stopped one's is final until it resumes.
    const stops = log.closed ? log.stops : log.stops + 1;
    if (this.#result === undefined || this.#resultStops !== stops) {
      this.#resultStops = stops;
      const record = (): RunRecord => buildRunRecord(log.published);
      // A pause resolves at once; an end once the loop has released its timers and listeners.
      const settle = (resolve: (record: Promise<RunRecord> | RunRecord) => void): void => {
        const last = log.published.at(-1);
        resolve(
          last?.type === 'done' && last.status.startsWith('awaiting_')
            ? record()
            : this.#finished.then(record),
        );
      };
      this.#result = log.stoppedVisibly
        ? new Promise(settle)
        : new Promise((resolve) => log.onStop(() => settle(resolve)));
    }
    return this.#result;
  }

  [Symbol.asyncIterator](): AsyncIterator<RunEvent> {
    return this.#log.follow();
  }

  follow(fromSeq: number): AsyncIterableIterator<RunEvent> {
    return this.#log.follow(fromSeq);
  }
}
