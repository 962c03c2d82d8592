import { Redis } from 'ioredis';
import type { RunEvent } from 'reins';
import type { FollowerCount } from '../run-registry.js';

/** What one instance tells the others: a cancel for the worker holding a run. */
export type ControlMessage = { readonly type: 'cancel'; readonly runId: string };

/** A worker's answer to an instance that sent a run an approval, an answer or a cancel. */
export interface Reply {
  readonly requestId: string;
  /** The core's answer (`ApprovalAnswer` / `ClarifyAnswerResult`), as data. */
  readonly answer:
    { readonly ok: true } | { readonly ok: false; readonly code: string; readonly message: string };
  /** Every event up to the answer is stored (an acknowledged answer is never lost). */
  readonly persisted: boolean;
}

export interface RunBusOptions {
  /** Key and channel prefix; default `reins:`. */
  readonly prefix?: string;
  /** This instance's id: its reply channel. */
  readonly instanceId: string;
  readonly onError?: (error: Error) => void;
}

type Listener = (message: string) => void;

/**
 * The instances' wire, over Redis pub/sub: one channel per run carrying its events (published
 * by the worker holding the run, after they are stored), one control channel every worker
 * listens to (cancel), one reply channel per instance. Two connections per process whatever
 * the number of runs or streams: a publisher, and a subscriber multiplexing every channel.
 *
 * Pub/sub is a doorbell, not the record: what is missed (a reconnect, a worker killed between
 * storing and publishing) is read from the run store, which has every event (see `RemoteRun`).
 * A cancel also leaves a flag (`isCancelled`) that a worker checks when it takes the run, so a
 * cancel sent while nobody holds the run is not lost.
 */
export class RunBus {
  readonly #pub: Redis;
  readonly #sub: Redis;
  readonly #prefix: string;
  readonly instanceId: string;
  readonly #listeners = new Map<string, { readonly set: Set<Listener>; readonly ready: Promise<unknown> }>();
  #closed = false;

  constructor(url: string, options: RunBusOptions) {
    const onError = options.onError ?? (() => undefined);
    // Queued while reconnecting (unlike the limit store's client): a published event or a
    // cancel is worth a short wait; the subscriber re-subscribes by itself after a reconnect.
    this.#pub = new Redis(url, { maxRetriesPerRequest: 2, connectTimeout: 2_000 });
    this.#sub = new Redis(url, { maxRetriesPerRequest: 2, connectTimeout: 2_000 });
    this.#pub.on('error', onError);
    this.#sub.on('error', onError);
    this.#prefix = options.prefix ?? 'reins:';
    this.instanceId = options.instanceId;
    this.#sub.on('message', (channel: string, message: string) => {
      for (const listener of this.#listeners.get(channel)?.set ?? []) {
        try {
          listener(message);
        } catch (error) {
          onError(error instanceof Error ? error : new Error(String(error)));
        }
      }
    });
  }

  /**
   * Calls `listener` each time the subscriber is connected again after losing Redis: what was
   * published meanwhile is gone, and followers re-read their runs from the store.
   */
  onReconnect(listener: () => void): void {
    let first = true;
    this.#sub.on('ready', () => {
      if (first) first = false;
      else listener();
    });
  }

  /** The Redis connection used for commands (the run locks share it). */
  get redis(): Redis {
    return this.#pub;
  }

  get prefix(): string {
    return this.#prefix;
  }

  /** Publishes a stored event of `runId` to the instances following it. */
  publishEvent(runId: string, event: RunEvent): Promise<unknown> {
    return this.#pub.publish(this.#eventsChannel(runId), JSON.stringify(event));
  }

  /** Follows `runId`'s events; resolves once subscribed. Returns the unsubscribe. */
  async onEvents(runId: string, listener: (event: RunEvent) => void): Promise<() => void> {
    return this.#listen(this.#eventsChannel(runId), (text) => listener(JSON.parse(text) as RunEvent));
  }

  /** Tells every worker; the one holding the run acts. A cancel also leaves its flag first. */
  async control(message: ControlMessage): Promise<void> {
    if (message.type === 'cancel') {
      await this.#pub.set(this.#cancelKey(message.runId), '1', 'PX', 86_400_000);
    }
    await this.#pub.publish(`${this.#prefix}control`, JSON.stringify(message));
  }

  onControl(listener: (message: ControlMessage) => void): Promise<() => void> {
    return this.#listen(`${this.#prefix}control`, (text) => listener(JSON.parse(text) as ControlMessage));
  }

  /** Whether a cancel was sent for the run (a worker taking the run checks this). */
  async isCancelled(runId: string): Promise<boolean> {
    return (await this.#pub.exists(this.#cancelKey(runId))) === 1;
  }

  reply(instanceId: string, reply: Reply): Promise<unknown> {
    return this.#pub.publish(`${this.#prefix}reply:${instanceId}`, JSON.stringify(reply));
  }

  onReplies(listener: (reply: Reply) => void): Promise<() => void> {
    return this.#listen(`${this.#prefix}reply:${this.instanceId}`, (text) =>
      listener(JSON.parse(text) as Reply),
    );
  }

  /**
   * The clients following runs, counted across instances (`RunRegistry.attach`): a client that
   * leaves one instance cancels its run only when no instance has one left. Kept a day at most
   * (an instance that died with clients counted does not keep a run from ever being cancelled
   * longer than that; its deadline ends it anyway).
   */
  followers(): FollowerCount {
    const key = (runId: string): string => `${this.#prefix}run:${runId}:followers`;
    const quiet = (): void => undefined;
    return {
      joined: (runId) => {
        this.#pub.multi().incr(key(runId)).pexpire(key(runId), 86_400_000).exec().catch(quiet);
      },
      left: (runId) => {
        this.#pub.decr(key(runId)).catch(quiet);
      },
      count: async (runId) => Number((await this.#pub.get(key(runId))) ?? 0),
    };
  }

  /** Both connections answer (for `/health`). */
  async ping(): Promise<void> {
    await Promise.all([this.#pub.ping(), this.#sub.ping()]);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#listeners.clear();
    this.#pub.disconnect();
    this.#sub.disconnect();
  }

  async #listen(channel: string, listener: Listener): Promise<() => void> {
    let subscribed = this.#listeners.get(channel);
    if (subscribed === undefined) {
      const entry = { set: new Set<Listener>(), ready: this.#sub.subscribe(channel) };
      // A subscribe that failed (Redis away) is forgotten: the next listener subscribes afresh,
      // not to the same rejection for good.
      entry.ready.catch(() => {
        if (this.#listeners.get(channel) === entry) this.#listeners.delete(channel);
      });
      subscribed = entry;
      this.#listeners.set(channel, subscribed);
    }
    subscribed.set.add(listener);
    try {
      await subscribed.ready; // a second listener of the channel waits for the same subscription
    } catch (error) {
      subscribed.set.delete(listener);
      throw error;
    }
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const current = this.#listeners.get(channel);
      current?.set.delete(listener);
      if (current?.set.size === 0 && !this.#closed) {
        this.#listeners.delete(channel);
        void this.#sub.unsubscribe(channel).catch(() => undefined);
      }
    };
  }

  #eventsChannel(runId: string): string {
    return `${this.#prefix}run:${runId}:events`;
  }

  #cancelKey(runId: string): string {
    return `${this.#prefix}run:${runId}:cancel`;
  }
}
