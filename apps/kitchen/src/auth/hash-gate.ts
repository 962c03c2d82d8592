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
 * A semaphore for password hashing. Contract: `run` either starts `fn` now, queues it (FIFO) or
 * refuses synchronously with `undefined` — it never waits unboundedly and never throws itself;
 * `fn`'s own result or rejection is passed through, and its slot is freed either way.
 */
export interface HashGate {
  run<T>(key: string, fn: () => Promise<T>): Promise<T> | undefined;
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
  const queuedByKey = new Map<string, number>();

  const release = () => {
    const next = queue.shift();
    if (next === undefined) {
      running--;
      return;
    }
    const left = (queuedByKey.get(next.key) ?? 1) - 1;
    if (left === 0) queuedByKey.delete(next.key);
    else queuedByKey.set(next.key, left);
    next.start(); // the slot passes straight to the next waiter
  };
  const runNow = <T>(fn: () => Promise<T>): Promise<T> => {
    let result: Promise<T>;
    try {
      result = fn();
    } catch (error) {
      result = Promise.reject(error);
    }
    return result.finally(release);
  };

  return {
    run(key, fn) {
      if (running < concurrency) {
        running++;
        return runNow(fn);
      }
      const mine = queuedByKey.get(key) ?? 0;
      if (queue.length >= queueSize || mine >= perKey) return undefined;
      queuedByKey.set(key, mine + 1);
      return new Promise((resolve, reject) => {
        queue.push({ key, start: () => runNow(fn).then(resolve, reject) });
      });
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
