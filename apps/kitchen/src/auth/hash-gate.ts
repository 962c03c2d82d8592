export interface HashGateOptions {
  /**
   * Derivations at once. Default 2: scrypt runs on libuv's pool (4 threads by default), which
   * file I/O and DNS share; two leave it room, and leave CPU for the event loop on small machines.
   */
  readonly concurrency?: number;
  /** Derivations that may wait for a slot; past it, `run` refuses. Default 16. */
  readonly queue?: number;
  /**
   * Of the queue, how many one caller (a client address) may hold. Default 4: one address
   * flooding logins cannot take every place, so a login from elsewhere still gets in line.
   */
  readonly queuePerKey?: number;
}

/**
 * A semaphore for password checks. Contract: `run` either starts `fn` now, queues it or
 * refuses synchronously with `undefined` — it never waits unboundedly and never throws itself;
 * `fn`'s own result or rejection is passed through, and its slot is freed either way.
 */
export interface HashGate {
  run<T>(key: string, fn: () => Promise<T>): Promise<T> | undefined;
  /** Whether `run(key, …)` would start or queue now (a hint: `run` decides). */
  hasRoom(key: string): boolean;
  readonly running: number;
  readonly waiting: number;
}

interface Waiter {
  readonly key: string;
  readonly start: () => void;
}

export const HASH_GATE_DEFAULTS = { concurrency: 2, queue: 16, queuePerKey: 4 } as const;

export function createHashGate(options: HashGateOptions = {}): HashGate {
  const concurrency = positive('concurrency', options.concurrency ?? HASH_GATE_DEFAULTS.concurrency);
  const queueSize = whole('queue', options.queue ?? HASH_GATE_DEFAULTS.queue);
  const perKey = whole('queuePerKey', options.queuePerKey ?? HASH_GATE_DEFAULTS.queuePerKey);
  let running = 0;
  const queue: Waiter[] = [];
  const runningByKey = new Map<string, number>();
  const queuedByKey = new Map<string, number>();
  const add = (counts: Map<string, number>, key: string, n: number) => {
    const value = (counts.get(key) ?? 0) + n;
    if (value === 0) counts.delete(key);
    else counts.set(key, value);
  };

  // A freed slot goes to the waiter whose key runs the fewest now (FIFO among equals): a login
  // from elsewhere goes ahead of a flood's next one instead of waiting for all of them.
  const release = (key: string) => {
    add(runningByKey, key, -1);
    let pick = -1;
    for (let i = 0; i < queue.length; i++) {
      const candidate = queue[i] as Waiter;
      const best = pick < 0 ? undefined : (queue[pick] as Waiter);
      if (best === undefined || (runningByKey.get(candidate.key) ?? 0) < (runningByKey.get(best.key) ?? 0))
        pick = i;
    }
    const next = pick < 0 ? undefined : queue.splice(pick, 1)[0];
    if (next === undefined) {
      running--;
      return;
    }
    add(queuedByKey, next.key, -1);
    next.start(); // the slot passes straight to the waiter
  };
  const runNow = <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    add(runningByKey, key, 1);
    let result: Promise<T>;
    try {
      result = fn();
    } catch (error) {
      result = Promise.reject(error);
    }
    return result.finally(() => release(key));
  };

  const canQueue = (key: string) => queue.length < queueSize && (queuedByKey.get(key) ?? 0) < perKey;

  return {
    run(key, fn) {
      if (running < concurrency) {
        running++;
        return runNow(key, fn);
      }
      if (!canQueue(key)) return undefined;
      add(queuedByKey, key, 1);
      return new Promise((resolve, reject) => {
        queue.push({ key, start: () => runNow(key, fn).then(resolve, reject) });
      });
    },
    hasRoom(key) {
      return running < concurrency || canQueue(key);
    },
    get running() {
      return running;
    },
    get waiting() {
      return queue.length;
    },
  };
}

function positive(name: string, n: number): number {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`hash gate ${name} must be a whole number ≥ 1`);
  return n;
}

function whole(name: string, n: number): number {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`hash gate ${name} must be a whole number ≥ 0`);
  return n;
}
