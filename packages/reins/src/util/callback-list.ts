/**
 * Callbacks to run once, later — usually none or one, so the first is kept in a field and
 * an array is made only for more (an empty array's first push allocates 17 slots).
 */
export class CallbackList {
  #first: (() => void) | undefined;
  #more: (() => void)[] | undefined;

  add(callback: () => void): void {
    if (this.#first === undefined) this.#first = callback;
    else (this.#more ??= []).push(callback);
  }

  remove(callback: () => void): void {
    if (this.#first === callback) {
      this.#first = this.#more?.shift();
      return;
    }
    const at = this.#more?.indexOf(callback) ?? -1;
    if (at !== -1) this.#more?.splice(at, 1);
  }

  /** Runs every callback once, in order, and forgets them all. */
  drain(): void {
    const first = this.#first;
    const more = this.#more;
    this.#first = undefined;
    this.#more = undefined;
    first?.();
    if (more !== undefined) for (const callback of more) callback();
  }
}
