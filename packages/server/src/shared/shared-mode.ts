import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { DurableRuns } from '../durable-runs.js';
import { RunRegistry } from '../run-registry.js';
import type { ServerState } from '../server-state.js';
import { RunBus } from './run-bus.js';
import { queueConnection, runQueue, type RunJob } from './run-jobs.js';
import { SharedApi, type SharedApiOptions } from './shared-api.js';
import { RunWorker, type RunWorkerOptions } from './run-worker.js';

/** What an instance of the shared mode does: serve the API, execute runs, or both. */
export type SharedRole = 'api' | 'worker' | 'all';

export const SHARED_ROLES: readonly SharedRole[] = ['api', 'worker', 'all'];

export interface SharedModeOptions extends SharedApiOptions, RunWorkerOptions {
  readonly role: SharedRole;
  /** Redis for the queue (BullMQ) and the bus (event fan-out, cancels, replies). */
  readonly redisUrl: string;
  /** This instance's id (its reply channel, its run locks); default a random id. */
  readonly instanceId?: string;
}

/** The shared mode's parts in one process: the API side, the worker side, and their wire. */
export class SharedMode {
  readonly bus: RunBus;
  readonly api: SharedApi | undefined;
  readonly worker: RunWorker | undefined;
  readonly role: SharedRole;
  readonly #connection: Redis;
  readonly #producer: Redis;
  readonly #queue: Queue<RunJob>;

  constructor(
    options: SharedModeOptions,
    prefix: string,
    s: ServerState,
    durable: DurableRuns,
    instanceId: string,
  ) {
    this.role = options.role;
    this.bus = new RunBus(options.redisUrl, {
      prefix,
      instanceId,
      onError: (error) => s.logger.debug({ err: error.message }, 'bus redis error'),
    });
    this.#connection = queueConnection(options.redisUrl, 'worker');
    this.#producer = queueConnection(options.redisUrl, 'producer');
    for (const connection of [this.#connection, this.#producer])
      connection.on('error', (error) => s.logger.debug({ err: error.message }, 'queue redis error'));
    this.#queue = runQueue(this.#producer, prefix);
    this.#queue.on('error', (error) => s.logger.debug({ err: error.message }, 'queue error'));
    this.api =
      options.role === 'worker'
        ? undefined
        : new SharedApi(this.bus, this.#queue, durable.store, s.logger, options);
    // The worker's runs live in a registry of their own (an `all` instance follows the same runs as an API too).
    const workerState: ServerState = { ...s, registry: new RunRegistry({ now: s.deps.now }) };
    this.worker =
      options.role === 'api'
        ? undefined
        : new RunWorker(workerState, durable, this.bus, this.#connection, this.#queue, prefix, options);
  }

  /** Starts taking jobs (worker) and listening for replies (API). */
  async start(): Promise<void> {
    await Promise.all([this.api?.open(), this.worker?.start()]);
  }

  /** Jobs waiting, running and delayed (for `/health` and scaling on queue depth). */
  async depth(): Promise<{ waiting: number; active: number; delayed: number }> {
    const counts = await this.#queue.getJobCounts('waiting', 'active', 'delayed');
    return {
      waiting: counts['waiting'] ?? 0,
      active: counts['active'] ?? 0,
      delayed: counts['delayed'] ?? 0,
    };
  }

  async drain(): Promise<void> {
    await this.worker?.drain();
  }

  async close(): Promise<void> {
    await this.worker?.close();
    this.api?.close();
    await this.#queue.close();
    this.bus.close();
    this.#connection.disconnect();
    this.#producer.disconnect();
  }
}
