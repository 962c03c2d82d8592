import { DelayedError, WaitingError, Worker, type Job, type Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { isPausedStatus, type ApprovalAnswer, type ClarifyAnswerResult } from 'reins';
import type { DurableRuns } from '../durable-runs.js';
import { isPause } from '../run-feed.js';
import type { RunEntry } from '../run-registry.js';
import type { ServerState } from '../server-state.js';
import type { Reply, RunBus } from './run-bus.js';
import { enqueue, QUEUE_NAME, queuePrefix, type RunAction, type RunJob } from './run-jobs.js';
import { RunLocks } from './run-lock.js';

export interface RunWorkerOptions {
  /** Runs one worker holds at once (BullMQ concurrency); default 10. */
  readonly concurrency?: number;
  /**
   * BullMQ's job lock and the run lock, in ms: a worker killed with SIGKILL has its runs handed
   * to another worker after about this long (the stalled-job check runs as often); default 30 000.
   */
  readonly lockMs?: number;
  /** Draining (SIGTERM): how long held runs may take to stop before they are handed back; default 10 000. */
  readonly drainGraceMs?: number;
}

/** A run this worker holds: the live run, and how to give it back to the queue. */
interface Held {
  readonly entry: RunEntry;
  readonly handBack: () => void;
}

type Outcome = 'stopped' | 'handed_back';

/**
 * A worker of the shared mode: takes run jobs from the queue and holds each run to its next
 * stop. A job starts a run or rebuilds it from its stored log by the durable-state rules
 * (history replayed, recorded model replies and observations reused, an interrupted
 * mutating call never made twice), applies what the job carries (an approval, an answer, a
 * cancel), and publishes every event on the bus once it is stored. At a pause the worker lets
 * go of the run (its hold stays reserved): whoever answers it queues a job, and any worker
 * rebuilds it. One worker per run at a time (`RunLocks`); a cancel for a held run arrives over
 * the bus's control channel.
 */
export class RunWorker {
  readonly #s: ServerState;
  readonly #durable: DurableRuns;
  readonly #bus: RunBus;
  readonly #connection: Redis;
  readonly #queue: Queue<RunJob>;
  readonly #prefix: string;
  readonly #locks: RunLocks;
  readonly #concurrency: number;
  readonly #graceMs: number;
  readonly #held = new Map<string, Held>();
  #worker: Worker<RunJob> | undefined;
  #stopControl: (() => void) | undefined;
  #draining: Promise<void> | undefined;

  constructor(
    s: ServerState,
    durable: DurableRuns,
    bus: RunBus,
    connection: Redis,
    queue: Queue<RunJob>,
    prefix: string,
    options: RunWorkerOptions = {},
  ) {
    this.#s = s;
    this.#durable = durable;
    this.#bus = bus;
    this.#connection = connection;
    this.#queue = queue;
    this.#prefix = prefix;
    this.#concurrency = options.concurrency ?? 10;
    this.#graceMs = options.drainGraceMs ?? 10_000;
    this.#locks = new RunLocks(bus.redis, prefix, bus.instanceId, options.lockMs ?? 30_000);
  }

  /** How many runs this worker holds now. */
  get holding(): number {
    return this.#held.size;
  }

  /** Starts taking jobs. */
  async start(): Promise<void> {
    if (this.#worker !== undefined) return;
    this.#stopControl = await this.#bus.onControl((message) => {
      if (message.type === 'cancel') this.#held.get(message.runId)?.entry.cancel();
    });
    const lockMs = this.#locks.ttlMs;
    this.#worker = new Worker<RunJob>(QUEUE_NAME, (job, token) => this.#process(job, token), {
      connection: this.#connection,
      prefix: queuePrefix(this.#prefix),
      concurrency: this.#concurrency,
      lockDuration: lockMs,
      stalledInterval: lockMs,
      maxStalledCount: 10,
    });
    this.#worker.on('error', (error) => this.#s.logger.warn({ err: error }, 'run worker error'));
    this.#worker.on('failed', (job, error) =>
      this.#s.logger.error({ runId: job?.data.runId, err: error }, 'run job failed'),
    );
  }

  /**
   * Stops taking jobs; held runs have `drainGraceMs` to reach their next stop, then the rest
   * are handed back to the queue (another worker rebuilds them from their logs at once).
   */
  drain(): Promise<void> {
    return (this.#draining ??= this.#drain());
  }

  async #drain(): Promise<void> {
    const closing = this.#worker?.close() ?? Promise.resolve();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.#graceMs)));
    await Promise.race([closing, grace]);
    clearTimeout(timer);
    const handedBack = this.#held.size;
    for (const held of this.#held.values()) held.handBack();
    await closing;
    this.#stopControl?.();
    this.#s.logger.info({ handedBack }, 'run worker drained');
  }

  /** Closes at once: held runs are left where their logs say (the stalled-job check hands them over). */
  async close(): Promise<void> {
    this.#stopControl?.();
    for (const runId of [...this.#held.keys()]) this.#s.registry.release(runId);
    await this.#worker?.close(true);
  }

  async #process(job: Job<RunJob>, token: string | undefined): Promise<Outcome> {
    const { runId, action } = job.data;
    if (!(await this.#locks.acquire(runId))) {
      // Another worker holds the run (a second answer meanwhile; an old lock not lapsed yet).
      await job.moveToDelayed(Date.now() + 200, token);
      throw new DelayedError();
    }
    let lost = false;
    const renewal = setInterval(() => {
      this.#locks.renew(runId).then(
        (ours) => {
          if (ours) return;
          lost = true; // another worker may have it now: let go of it without storing anything
          this.#held.get(runId)?.handBack();
        },
        () => undefined, // Redis away a moment: the next renewal tries again
      );
    }, this.#locks.ttlMs / 3);
    try {
      const outcome = await this.#hold(runId, action);
      if (outcome === 'handed_back') {
        // Back to the queue at once (if the job is no longer ours, this throws: BullMQ's
        // stalled-job check or a retry gives it to a worker).
        await job.moveToWait(token);
        throw new WaitingError();
      }
      return outcome;
    } finally {
      clearInterval(renewal);
      if (!lost) await this.#locks.release(runId).catch(() => undefined);
    }
  }

  async #hold(runId: string, action: RunAction | undefined): Promise<Outcome> {
    const loaded = await this.#durable.store.load(runId);
    if (loaded === undefined || !(loaded.run.status === 'running' || isPausedStatus(loaded.run.status))) {
      await this.#reply(action, {
        ok: false,
        code: 'NOT_FOUND',
        message: 'the run has ended: nothing is pending',
      });
      return 'stopped';
    }
    const from = loaded.events.length;
    const { entry, how } = await this.#durable.rebuild(this.#s, loaded, 'stop');
    if (how === 'failed') {
      await this.#reply(action, { ok: false, code: 'NOT_FOUND', message: 'the run could not be rebuilt' });
      return 'stopped';
    }
    let handBack: () => void = () => undefined;
    const handedBack = new Promise<'handed_back'>((resolve) => (handBack = () => resolve('handed_back')));
    this.#held.set(runId, { entry, handBack });
    try {
      await this.#apply(entry, action);
      if (await this.#bus.isCancelled(runId)) entry.cancel();
      const outcome = await Promise.race([
        this.#publish(entry, from).then(() => 'stopped' as const),
        handedBack,
      ]);
      if (outcome === 'handed_back') {
        this.#s.registry.release(runId); // stopped here, nothing stored: the next worker rebuilds it
        return outcome;
      }
      const last = entry.events.at(-1);
      if (last?.type === 'done' && isPause(last.status)) await this.#letGoAtPause(entry, from, action);
      await entry.watched; // its metrics, spans and hold are up to date before the job completes
      return 'stopped';
    } finally {
      this.#held.delete(runId);
    }
  }

  /** Applies the job's action to the rebuilt run; approvals and answers are replied to their instance. */
  async #apply(entry: RunEntry, action: RunAction | undefined): Promise<void> {
    if (action === undefined || action.kind === 'expire') return;
    if (action.kind === 'cancel') return entry.cancel();
    const answer: ApprovalAnswer | ClarifyAnswerResult =
      action.kind === 'approve' ? entry.run.approve(action.decision) : entry.run.answer(action.answer);
    entry.feed.poke();
    // Acknowledged only once stored: the `resume` event is what a crash would otherwise lose.
    const persisted = answer.ok ? await entry.run.persisted() : true;
    await this.#reply(action, answer.ok ? { ok: true } : answer, persisted);
  }

  async #reply(action: RunAction | undefined, answer: Reply['answer'], persisted = true): Promise<void> {
    if (action === undefined || !('reply' in action)) return;
    const { instanceId, requestId } = action.reply;
    const wire: Reply['answer'] = answer.ok
      ? { ok: true }
      : { ok: false, code: answer.code, message: answer.message };
    await this.#bus.reply(instanceId, { requestId, answer: wire, persisted });
  }

  /** Every stored event from `from`, on the bus, to the run's next stop. */
  async #publish(entry: RunEntry, from: number): Promise<void> {
    for await (const event of entry.feed.follow(from, 'stop')) {
      if (entry.released) return; // let go of: what the run does in memory now is not stored, not shown
      await this.#bus
        .publishEvent(entry.runId, event)
        .catch((error: unknown) =>
          this.#s.logger.warn(
            { runId: entry.runId, err: error },
            'event not published (readers catch up from the store)',
          ),
        );
    }
  }

  /**
   * Paused: let go of the run — it waits in the store, not in a worker's memory. Its expiry is
   * queued (a job at `expiresAt` rebuilds it, and the run goes on by itself as a held one would).
   */
  async #letGoAtPause(entry: RunEntry, from: number, action: RunAction | undefined): Promise<void> {
    const pending = entry.run.pendingApproval ?? entry.run.pendingQuestion;
    const pause = entry.events.at(-1);
    this.#s.registry.release(entry.runId);
    if (pending === undefined || pause === undefined) return;
    // A pause from the history already has its expiry queued (unless this job is that expiry, early).
    if (pause.seq < from && action?.kind !== 'expire') return;
    const delayMs = Math.max(0, pending.expiresAt - this.#s.deps.now()) + 500;
    await enqueue(this.#queue, { runId: entry.runId, action: { kind: 'expire' } }, delayMs);
  }
}
