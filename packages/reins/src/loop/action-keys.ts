/**
 * The actions a run has made: canonical action key → the model step that first made it (for
 * the repeated-action guard). The first is kept in two fields and a `Map` is made only for a
 * second: an empty `Map` is ~180 bytes, and a run in flight usually has made one action.
 */
export class ActionKeys {
  #firstKey: string | undefined;
  #firstStep = 0;
  #more: Map<string, number> | undefined;

  get(key: string): number | undefined {
    if (key === this.#firstKey) return this.#firstStep;
    return this.#more?.get(key);
  }

  set(key: string, step: number): void {
    if (this.#firstKey === undefined || key === this.#firstKey) {
      this.#firstKey = key;
      this.#firstStep = step;
    } else (this.#more ??= new Map()).set(key, step);
  }
}
