import type { ApprovalEvent, RunStatus } from '../events.js';
import type { RunDeps } from '../util/deps.js';
import { inputHash, type ApprovalOutcome, type Approvals } from './approvals.js';
import type { EventLog } from './event-log.js';
import type { LoopContext } from './loop-context.js';

/** What a run lends a pause for approval (ReAct and plan runs alike). */
export interface ApprovalPause {
  readonly log: EventLog;
  readonly deps: RunDeps;
  readonly approvals: Approvals | undefined;
  readonly deadline: { pause(): void; resume(): void } | undefined;
  readonly ttlMs: number;
  /** The model step the waiting call belongs to. */
  readonly index: number;
  /** Read after the input is hashed: a cancel meanwhile means no pause. */
  readonly aborted: () => boolean;
  /** Ends the log segment with `done {status}` (the run's own counters and usage). */
  readonly done: (status: RunStatus) => void;
  /** Runs when the run resumes (answered, expired or cancelled), after the log reopens. */
  readonly onResume?: () => void;
}

/**
 * Pauses the run before a call that needs approval: `approval` (exact input and its hash)
 * then `done {awaiting_approval}`, the deadline stopped; resumes in the same log when the
 * user answers, the approval expires or the run is cancelled.
 */
export async function pauseForApproval(
  run: ApprovalPause,
  actId: string,
  tool: string,
  input: unknown,
): Promise<ApprovalOutcome> {
  const { log, deps, approvals, deadline } = run;
  const hash = await inputHash(input);
  if (approvals === undefined || run.aborted() || log.closed) return { kind: 'cancelled', at: deps.now() };
  // The logged expiry: a run rebuilt after a restart keeps its history's.
  const { expiresAt } = log.append({
    type: 'approval',
    index: run.index,
    actId,
    tool,
    input,
    inputHash: hash,
    expiresAt: deps.now() + run.ttlMs,
  }) as ApprovalEvent;
  const answered = approvals.wait({ actId, tool, input, inputHash: hash, expiresAt }, (outcome) => {
    log.reopen();
    log.append({ type: 'resume', actId, outcome });
    deadline?.resume();
    run.onResume?.();
  });
  run.done('awaiting_approval');
  deadline?.pause();
  return answered;
}

/** The parts of a ReAct run's pause that come from its context (`index`: the waiting call's model step). */
export function approvalPauseOf(ctx: LoopContext, index: number): Omit<ApprovalPause, 'done'> {
  const { log, deps, limits, approvals, deadline, act } = ctx;
  return {
    log,
    deps,
    approvals,
    deadline,
    ttlMs: limits.approvalTtlMs,
    index,
    aborted: () => act.signal.aborted,
  };
}
