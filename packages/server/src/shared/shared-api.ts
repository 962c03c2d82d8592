import type { Queue } from 'bullmq';
import {
  interruptedEnding,
  isPausedStatus,
  resolveLimits,
  type ApprovalAnswer,
  type ApprovalDecision,
  type ClarifyAnswer,
  type ClarifyAnswerResult,
  type LoadedRun,
  type RunEvent,
  type RunStore,
} from 'reins';
import { ApiError } from '../http-error.js';
import type { Logger } from '../logging.js';
import type { RunEntry, RunRegistry } from '../run-registry.js';
import type { ServerState } from '../server-state.js';
import { holdEndedRun } from '../stored-run.js';
import { SharedByKey } from '../shared-by-key.js';
import { storedTraceId, type RunRequest } from '../launch-run.js';
import { RemoteRun } from './remote-run.js';
import type { Reply, RunBus } from './run-bus.js';
import { enqueue, type RunAction, type RunJob } from './run-jobs.js';

export interface SharedApiOptions {
  /** How long an approval, an answer or a cancel waits for the worker's reply; default 10 000 ms. */
  readonly replyTimeoutMs?: number;
  /** A followed run that was quiet this long is re-read from the store (lost messages); default 5 000 ms. */
  readonly resyncQuietMs?: number;
}

/** How often followed runs are checked for quiet; paused ones are re-read less often. */
const RESYNC_EVERY_MS = 1_000;
const PAUSED_QUIET_FACTOR = 6;
/** A paused run nobody here has looked at for this long is forgotten here (it is in the store). */
const PAUSED_FORGET_MS = 60_000;

type Answer = { readonly ok: true } | { readonly ok: false; readonly code: string; readonly message: string };

/**
 * An API instance of the shared mode: it runs nothing itself. A new run is stored and queued
 * (a worker takes it); every run is followed from the store and the bus (`RemoteRun`), from
 * whichever instance the client reaches; cancels, approvals and answers are sent to the
 * worker holding the run (or, for a paused run nobody holds, queued for any worker, which
 * rebuilds it from its log and answers here over the bus).
 */
export class SharedApi {
  readonly #bus: RunBus;
  readonly #queue: Queue<RunJob>;
  readonly #store: RunStore;
  readonly #logger: Logger;
  readonly #replyTimeoutMs: number;
  readonly #waiting = new Map<string, (reply: Reply) => void>();
  readonly #opening = new SharedByKey<RunEntry | undefined>();
  readonly #reading = new SharedByKey<LoadedRun | undefined>();
  /** The runs followed here (not ended): re-read from the store when quiet, or after Redis came back. */
  readonly #followed = new Map<RemoteRun, RunEntry>();
  #registry: RunRegistry | undefined;
  readonly #resyncQuietMs: number;
  #resyncTimer: ReturnType<typeof setInterval> | undefined;
  #nextRequest = 0;
  #stopListening: (() => void) | undefined;

  constructor(
    bus: RunBus,
    queue: Queue<RunJob>,
    store: RunStore,
    logger: Logger,
    options: SharedApiOptions = {},
  ) {
    this.#bus = bus;
    this.#queue = queue;
    this.#store = store;
    this.#logger = logger;
    this.#replyTimeoutMs = options.replyTimeoutMs ?? 10_000;
    this.#resyncQuietMs = options.resyncQuietMs ?? 5_000;
    bus.onReconnect(() => this.#resync(0));
  }

  /** Listens for the workers' replies to this instance. */
  async open(): Promise<void> {
    this.#stopListening ??= await this.#bus.onReplies((reply) => this.#waiting.get(reply.requestId)?.(reply));
    if (this.#resyncTimer === undefined) {
      this.#resyncTimer = setInterval(() => this.#resync(this.#resyncQuietMs), RESYNC_EVERY_MS);
      this.#resyncTimer.unref();
    }
  }

  close(): void {
    this.#stopListening?.();
    this.#stopListening = undefined;
    clearInterval(this.#resyncTimer);
    for (const remote of this.#followed.keys()) remote.close();
    this.#followed.clear();
  }

  /** Runs followed here now (for tests and `/health`). */
  get following(): number {
    return this.#followed.size;
  }

  #resync(quietMs: number): void {
    const now = Date.now();
    for (const [remote, entry] of this.#followed) {
      if (!remote.following) {
        this.#followed.delete(remote);
        continue;
      }
      const paused = remote.pendingApproval !== undefined || remote.pendingQuestion !== undefined;
      if (paused && entry.clients === 0 && remote.quietFor(now) > PAUSED_FORGET_MS) {
        // Waiting for its user, watched by nobody here: memory is not where it waits.
        remote.close();
        this.#followed.delete(remote);
        this.#registry?.drop(remote.runId);
        continue;
      }
      void remote.resync(now, paused ? quietMs * PAUSED_QUIET_FACTOR : quietMs);
    }
  }

  /** A run just stored (no event yet): followed here, and queued for a worker. */
  async start(s: ServerState, runId: string, request: RunRequest): Promise<RunEntry> {
    const { agent, query, conversationId } = request;
    const ownerId = request.principal.id;
    let remote: RemoteRun | undefined;
    try {
      remote = await RemoteRun.open(runId, this.#bus, this.#store, (run) => this.#cancel(run), []);
      if (remote === undefined) throw new Error(`run ${runId} was not created before it was started`);
      const entry = this.#register(s, remote, ownerId, agent);
      await enqueue(this.#queue, { runId });
      return entry;
    } catch (error) {
      // Not queued (Redis unreachable): the run is ended in the store — never left "running"
      // with no job — and the request is refused.
      remote?.close();
      s.registry.release(runId);
      const asked = { agent, query, conversationId };
      const ending = interruptedEnding(runId, [], resolveLimits({}), s.deps.now(), asked);
      await this.#store.append(runId, ending).catch(() => undefined);
      this.#logger.error({ runId, err: error }, 'run not queued: the queue is unreachable');
      throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'the run queue is unreachable; try again shortly', {
        'Retry-After': '5',
      });
    }
  }

  /** The owner's run: followed here already, or read from the store (ended: replayed; else followed). */
  find(s: ServerState, runId: string, ownerId: string): Promise<RunEntry | undefined> {
    const held = s.registry.get(runId, ownerId);
    if (held !== undefined) return Promise.resolve(held);
    // Another user's run is left as stored: not held here, nor followed, on a stranger's request.
    const opening =
      this.#opening.get(runId) ??
      this.#reading
        .run(runId, () => this.#store.load(runId))
        .then((loaded) =>
          loaded?.run.ownerId === ownerId
            ? this.#opening.run(runId, () => this.#openStored(s, loaded))
            : undefined,
        );
    return opening.then((entry) => (entry?.ownerId === ownerId ? entry : undefined));
  }

  /** The owner's runs that have not ended (running or paused), wherever they are held. */
  async unfinished(s: ServerState, ownerId: string): Promise<RunEntry[]> {
    const runs = (await this.#store.unfinished()).filter((run) => run.ownerId === ownerId);
    const found = await Promise.all(runs.map((run) => this.find(s, run.runId, ownerId)));
    return found.filter((entry): entry is RunEntry => entry !== undefined && entry.record === undefined);
  }

  /** Sends the approval to a worker (which rebuilds the paused run and answers it); the core's answer back. */
  async approve(entry: RunEntry, decision: ApprovalDecision): Promise<ApprovalAnswer> {
    const answer = await this.#ask(entry, (reply) => ({ kind: 'approve', decision, reply }));
    return answer.ok
      ? { ok: true, actId: decision.actId, approved: decision.approve }
      : (answer as ApprovalAnswer);
  }

  async answer(entry: RunEntry, answer: ClarifyAnswer): Promise<ClarifyAnswerResult> {
    const result = await this.#ask(entry, (reply) => ({ kind: 'answer', answer, reply }));
    return result.ok ? { ok: true, questionId: answer.questionId } : (result as ClarifyAnswerResult);
  }

  async #ask(
    entry: RunEntry,
    action: (reply: { instanceId: string; requestId: string }) => RunAction,
  ): Promise<Answer> {
    const requestId = `${this.#bus.instanceId}-${++this.#nextRequest}`;
    const replied = new Promise<Reply | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), this.#replyTimeoutMs);
      this.#waiting.set(requestId, (reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
    });
    try {
      await enqueue(this.#queue, {
        runId: entry.runId,
        action: action({ instanceId: this.#bus.instanceId, requestId }),
      });
      const reply = await replied;
      if (reply === undefined) {
        throw new ApiError(
          503,
          'SERVICE_UNAVAILABLE',
          `no worker answered within ${this.#replyTimeoutMs} ms; the answer is queued and will be applied when a worker takes the run`,
        );
      }
      if (reply.answer.ok) {
        if (!reply.persisted) {
          throw new ApiError(
            503,
            'SERVICE_UNAVAILABLE',
            'the answer was taken but could not be stored; if the worker restarts, it will be asked again',
          );
        }
        (entry.run as RemoteRun).markAnswered();
      }
      return reply.answer;
    } finally {
      this.#waiting.delete(requestId);
    }
  }

  /** Cancel: the worker holding the run stops it; a paused run nobody holds is queued to end `cancelled`. */
  #cancel(run: RemoteRun): void {
    const paused = run.pendingApproval !== undefined || run.pendingQuestion !== undefined;
    void (async () => {
      await this.#bus.control({ type: 'cancel', runId: run.runId });
      if (paused) await enqueue(this.#queue, { runId: run.runId, action: { kind: 'cancel' } });
    })().catch((error: unknown) =>
      this.#logger.error({ runId: run.runId, err: error }, 'cancel could not be sent to the workers'),
    );
  }

  async #openStored(s: ServerState, loaded: LoadedRun): Promise<RunEntry | undefined> {
    const { run, events } = loaded;
    const runId = run.runId;
    const live = run.status === 'running' || isPausedStatus(run.status);
    if (!live) return holdEndedRun(s.registry, loaded);
    const remote = await RemoteRun.open(
      runId,
      this.#bus,
      this.#store,
      (r) => this.#cancel(r),
      events as RunEvent[],
    );
    if (remote === undefined) return undefined;
    const entry = this.#register(s, remote, run.ownerId, run.agent);
    entry.traceId = storedTraceId(run.request);
    return entry;
  }

  #register(s: ServerState, remote: RemoteRun, ownerId: string, agent: string): RunEntry {
    const entry = s.registry.add(remote.runId, ownerId, agent, remote, () => remote.cancel());
    remote.onChange = () => entry.feed.poke();
    this.#followed.set(remote, entry);
    this.#registry = s.registry;
    return entry;
  }
}
