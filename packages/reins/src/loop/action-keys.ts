/**
 * The actions a run has made: canonical action key → the model step that first made it (for
 * the repeated-action guard). The first is kept in two fields; the next few in one array sized
 * exactly (key, step, key, step …), scanned in order; a `Map` only past `SCAN_LIMIT` of them.
 * An empty `Map` is ~180 bytes, and a run in flight usually has made one to a few actions.
 */
export class ActionKeys {
  #firstKey: string | undefined;
  #firstStep = 0;
  #few: readonly (string | number)[] | undefined;
  #many: Map<string, number> | undefined;

  get(key: string): number | undefined {
    if (key === this.#firstKey) return this.#firstStep;
    const few = this.#few;
    if (few !== undefined) {
      for (let i = 0; i < few.length; i += 2) if (few[i] === key) return few[i + 1] as number;
    }
    return this.#many?.get(key);
  }

  set(key: string, step: number): void {
    if (this.#firstKey === undefined || key === this.#firstKey) {
      this.#firstKey = key;
      this.#firstStep = step;
      return;
    }
    const few = this.#few;
    if (few !== undefined) {
      for (let i = 0; i < few.length; i += 2) {
        if (few[i] === key) {
          const copy = few.slice(); // exact-sized, like the original
          copy[i + 1] = step;
          this.#few = copy;
          return;
        }
      }
    }
    if (this.#many !== undefined || (few !== undefined && few.length >= SCAN_LIMIT * 2)) {
      (this.#many ??= new Map()).set(key, step);
      return;
    }
    // concat makes an exact-size copy (push would leave ~16 spare slots per run).
    this.#few = few === undefined ? [key, step] : few.concat(key, step);
  }
}

/** Actions after the first kept in the scanned array; more go to a `Map` (lookups stay O(1)). */
const SCAN_LIMIT = 8;
