import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { ApprovalDecision, ClarifyAnswer } from 'reins';

/** What a job asks of the worker taking the run, besides holding it to its next stop. */
export type RunAction =
  | { readonly kind: 'approve'; readonly decision: ApprovalDecision; readonly reply: ReplyTo }
  | { readonly kind: 'answer'; readonly answer: ClarifyAnswer; readonly reply: ReplyTo }
  /** The user cancelled a run nobody holds (paused): it ends `cancelled`. */
  | { readonly kind: 'cancel' }
  /** A pause's approval or question expires: the run goes on by itself (as a held one would). */
  | { readonly kind: 'expire' };

export interface ReplyTo {
  readonly instanceId: string;
  readonly requestId: string;
}

/**
 * One job: take the run (start it, or rebuild it from its stored log), do `action`, and hold
 * it to its next stop (a pause or its end). The job carries only ids and the user's answer:
 * the run's request and history are in the run store.
 */
export interface RunJob {
  readonly runId: string;
  readonly action?: RunAction;
}

export const QUEUE_NAME = 'runs';

/** BullMQ's key prefix from the server's (`reins:` → `reins`). */
export function queuePrefix(prefix: string): string {
  return prefix.replace(/:+$/, '') || 'reins';
}

/**
 * A connection for BullMQ; the caller closes it. A worker's waits forever for Redis (BullMQ
 * requires `maxRetriesPerRequest: null`); a producer's fails a command after one reconnect
 * attempt, so a request adding a job is refused quickly while Redis is away.
 */
export function queueConnection(url: string, use: 'worker' | 'producer'): Redis {
  return new Redis(url, { maxRetriesPerRequest: use === 'worker' ? null : 1, connectTimeout: 2_000 });
}

/** The queue API instances add to (and workers take from). */
export function runQueue(connection: Redis, prefix: string): Queue<RunJob> {
  return new Queue<RunJob>(QUEUE_NAME, {
    connection,
    prefix: queuePrefix(prefix),
    defaultJobOptions: {
      // A job whose worker threw (the store was down) is tried again, for about half an hour
      // in all (500 ms doubling); a stalled one is handed over by BullMQ's stalled-job check.
      attempts: 12,
      backoff: { type: 'exponential', delay: 500 },
      removeOnComplete: true,
      removeOnFail: { age: 7 * 86_400, count: 10_000 },
    },
  });
}

/**
 * Adds a job; `delayMs` for a pause's expiry. A user waiting on an answer, an approval or a
 * cancel goes first: BullMQ takes jobs without a priority before prioritized ones, so new runs
 * and expiries get priority 1 and never hold up an answer (measured: an approval's p99 under
 * load fell from 378 ms to the table in docs/scaling.md).
 */
export async function enqueue(queue: Queue<RunJob>, job: RunJob, delayMs = 0): Promise<void> {
  const waiting = job.action !== undefined && job.action.kind !== 'expire';
  await queue.add(job.action?.kind ?? 'start', job, {
    ...(delayMs > 0 ? { delay: delayMs } : {}),
    ...(waiting ? {} : { priority: 1 }),
  });
}
