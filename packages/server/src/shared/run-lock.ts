import type { Redis } from 'ioredis';

// Extends or deletes the lock only while it is still ours (another worker may hold it now).
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/**
 * One worker at a time per run: a job that would touch a run another worker holds (a second
 * answer arriving meanwhile, a stalled job handed over before the old lock lapsed) waits.
 * The lock lapses `ttlMs` after its last renewal, so a worker killed with SIGKILL holds a run
 * no longer than BullMQ's own job lock (the same duration).
 */
export class RunLocks {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly token: string,
    readonly ttlMs: number,
  ) {}

  /** Takes the lock of `runId`; `false` when another worker holds it. */
  async acquire(runId: string): Promise<boolean> {
    return (await this.redis.set(this.#key(runId), this.token, 'PX', this.ttlMs, 'NX')) === 'OK';
  }

  /** Extends the lock; `false` when it is no longer ours (lapsed, and maybe taken). */
  async renew(runId: string): Promise<boolean> {
    return (await this.redis.eval(RENEW, 1, this.#key(runId), this.token, String(this.ttlMs))) === 1;
  }

  async release(runId: string): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.#key(runId), this.token);
  }

  #key(runId: string): string {
    return `${this.prefix}run:${runId}:lock`;
  }
}
