/**
 * One piece of work per key at a time: callers for a key while its work is under way share
 * its promise (a run is read from the store once, and rebuilt or opened once).
 */
export class SharedByKey<T> {
  readonly #pending = new Map<string, Promise<T>>();

  /** The work under way for `key`, if any. */
  get(key: string): Promise<T> | undefined {
    return this.#pending.get(key);
  }

  /** The work under way for `key`, or `start()`'s, shared until it settles. */
  run(key: string, start: () => Promise<T>): Promise<T> {
    let pending = this.#pending.get(key);
    if (pending === undefined) {
      pending = start().finally(() => this.#pending.delete(key));
      this.#pending.set(key, pending);
    }
    return pending;
  }
}
