import type { RunEvent } from '../events.js';
import { buildRunRecord, type RunRecord } from '../record.js';
import { blobRefFor, readLargeField, type BlobStore } from '../blob-store.js';
import { CallbackList } from '../util/callback-list.js';
import type { ClarifyAnswer, ClarifyAnswerResult, Clarifications, PendingQuestion } from '../plan/clarify.js';
import type { ApprovalAnswer, ApprovalDecision, Approvals, PendingApproval } from './approvals.js';
import type { EventLog } from './event-log.js';
import type { AgentRun } from './run-agent.js';

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
  readonly #abort: { cancel(): void };
  #cancel: (() => void) | undefined;
  /** The loop has ended and released its timers and listeners (`loopEnded`). */
  #ended = false;
  /** Settles `result` when the loop ends: a run that cannot pause, and is not durable. */
  #settleRecord: ((record: RunRecord | Promise<RunRecord>) => void) | undefined;
  /** Callers waiting for the loop to end (`#whenEnded`); made when the first one asks. */
  #endWaiters: CallbackList | undefined;

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
    // This run's results only: runs share a blob store, and a ref is `blob:<run id>/<act id>`.
    const own = blobRefFor(this.runId, '');
    if (typeof ref !== 'string' || !ref.startsWith(own) || ref.includes('/', own.length)) {
      return Promise.resolve(undefined);
    }
    return readLargeField(this.#blobStore, ref);
  }

  persisted(): Promise<boolean> {
    return this.#log.persisted();
  }

  constructor(
    readonly runId: string,
    log: EventLog,
    abort: { cancel(): void },
    blobStore: BlobStore,
    approvals: Approvals | undefined,
    clarifications: Clarifications | undefined = undefined,
  ) {
    this.#blobStore = blobStore;
    this.#approvals = approvals;
    this.#clarifications = clarifications;
    this.events = log.published; // the log's own array: live, append-only (stored events only, when durable)
    this.#log = log;
    this.#abort = abort;
  }

  /** Made when first read (most callers never cancel): a function of its own, so it can be passed around. */
  get cancel(): () => void {
    return (this.#cancel ??= () => this.#abort.cancel());
  }

  /** The run's loop has ended and released its timers and listeners: called once, by the loop. */
  loopEnded(): void {
    this.#ended = true;
    const settle = this.#settleRecord;
    if (settle !== undefined) {
      this.#settleRecord = undefined;
      settle(recordOf(this.#log.events));
    }
    const waiters = this.#endWaiters;
    this.#endWaiters = undefined;
    waiters?.drain();
  }

  #whenEnded(): Promise<void> {
    if (this.#ended) return Promise.resolve();
    return new Promise((resolve) => (this.#endWaiters ??= new CallbackList()).add(resolve));
  }

  get result(): Promise<RunRecord> {
    const log = this.#log;
    // A run that cannot pause stops once: its record is ready when the loop has finished.
    if (this.#approvals === undefined && this.#clarifications === undefined) {
      if (this.#result !== undefined) return this.#result;
      if (log.durable) {
        const stored = this.#whenEnded().then(() => log.persisted());
        return (this.#result = stored.then(() => buildRunRecord(log.published)));
      }
      // No store: nothing to wait for. Settled by `loopEnded` itself: no promise chain per run.
      if (this.#ended) return (this.#result = Promise.resolve(recordOf(log.events)));
      return (this.#result = new Promise((resolve) => (this.#settleRecord = resolve)));
    }
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
            : this.#whenEnded().then(record),
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

/** The record of an ended run's log; a record that cannot be built rejects `result`, as a `.then` would. */
function recordOf(events: readonly RunEvent[]): RunRecord | Promise<RunRecord> {
  try {
    return buildRunRecord(events);
  } catch (thrown) {
    return Promise.reject(thrown as Error);
  }
}
