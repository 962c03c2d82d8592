/**
 * Names for a pool's parameterized statements. `pg` prepares a named statement once per
 * connection and afterwards only binds and executes it, so PostgreSQL parses and plans each
 * text once per connection instead of at every call (at 200 kitchen runs in flight that was
 * ~20% more runs/s: bench/kitchen-load, docs/performance.md). The first `max` texts seen get a
 * name; any later one runs unnamed, so SQL built from data (a bug) cannot fill every
 * connection with prepared statements.
 */
export class StatementNames {
  readonly #names = new Map<string, string>();
  readonly #max: number;

  constructor(max = 256) {
    if (!Number.isInteger(max) || max < 0) throw new RangeError(`max must be a whole number ≥ 0, got ${max}`);
    this.#max = max;
  }

  /** The name `text` is prepared under, or `undefined` to run it unnamed. */
  nameOf(text: string): string | undefined {
    const known = this.#names.get(text);
    if (known !== undefined || this.#names.size >= this.#max) return known;
    const name = `reins_${this.#names.size + 1}`;
    this.#names.set(text, name);
    return name;
  }

  /** How many texts have a name. */
  get size(): number {
    return this.#names.size;
  }
}
