const END: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * A reader of something that grows (a run's event log, a feed across pauses): `take()` says
 * what is ready now, `waitForChange(wake)` calls `wake` once at the next change. `next()` calls
 * that find nothing ready wait and are answered in call order; `return()` ends a pending
 * `next()` at once. A plain iterator, not a generator: cheaper per event, and ending it never
 * waits for a producer.
 */
export abstract class FollowCursor<T> implements AsyncIterableIterator<T> {
  /** Set once the reader is done: every later `next()` answers `done`. */
  protected finished = false;
  readonly #pending: ((result: IteratorResult<T, undefined>) => void)[] = [];
  #listening = false;

  /** The next item, `END` when the reader is done, or `undefined` when nothing is ready yet. */
  protected abstract take(): IteratorResult<T, undefined> | undefined;

  /** Calls `wake` once, at the next change of what is followed. */
  protected abstract waitForChange(wake: () => void): void;

  next(): Promise<IteratorResult<T, undefined>> {
    if (this.#pending.length === 0) {
      const ready = this.finished ? END : this.take();
      if (ready !== undefined) return Promise.resolve(ready);
    }
    return new Promise((resolve) => {
      this.#pending.push(resolve);
      this.#listen();
    });
  }

  return(): Promise<IteratorResult<T, undefined>> {
    this.finished = true;
    this.#answerPending();
    return Promise.resolve(END);
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }

  /** The done result, for `take()` to answer with. */
  protected end(): IteratorReturnResult<undefined> {
    this.finished = true;
    return END;
  }

  #listen(): void {
    if (this.#listening) return;
    this.#listening = true;
    this.waitForChange(() => {
      this.#listening = false;
      this.#answerPending();
      if (this.#pending.length > 0) this.#listen();
    });
  }

  #answerPending(): void {
    while (this.#pending.length > 0) {
      const ready = this.finished ? END : this.take();
      if (ready === undefined) return;
      this.#pending.shift()?.(ready);
    }
  }
}
