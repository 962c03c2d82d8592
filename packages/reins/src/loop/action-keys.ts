import type { ActStep, RunEvent } from '../events.js';
import { canonicalJson } from '../util/canonical-json.js';

/**
 * The actions a run has made, for the repeated-action guard: canonical action key → the model
 * step that first made it. Only numbers are kept — each action's key hash and the sequence
 * number of its `act` event — since the run's log holds the tool and input the key is made of:
 * a hash that matches is confirmed by making that act's key again, so two actions whose
 * hashes collide are never taken for each other. A key's text is ~40 bytes a step that a run
 * in flight no longer holds (see bench/loop-overhead). The first action is kept in two fields,
 * the others in one array (hash, seq, hash, seq …), scanned in order, whose size doubles when
 * it is full: exact for the second and third actions, and no copy of the whole array per step
 * (a copy per step made a long run's guard cost grow with its length).
 */
export class ActionKeys {
  readonly #log: { readonly events: readonly RunEvent[] };
  #firstHash = 0;
  /** The first action's `act` event (-1: none yet). */
  #firstSeq = -1;
  #rest: number[] | undefined;
  /** How many slots of `#rest` hold actions (two per action). */
  #restUsed = 0;

  /** @param log the run's log (its `events` by sequence number) */
  constructor(log: { readonly events: readonly RunEvent[] }) {
    this.#log = log;
  }

  /** The step that first made the action `key` (whose `keyHash` is `hash`), if one did. */
  get(key: string, hash: number): number | undefined {
    if (this.#firstSeq >= 0 && this.#firstHash === hash) {
      const step = this.#confirmed(this.#firstSeq, key);
      if (step !== undefined) return step;
    }
    const rest = this.#rest;
    if (rest === undefined) return undefined;
    for (let i = 0; i < this.#restUsed; i += 2) {
      if (rest[i] !== hash) continue;
      const step = this.#confirmed(rest[i + 1] as number, key);
      if (step !== undefined) return step;
    }
    return undefined;
  }

  /**
   * The action `key` (one `get` did not find; `hash` its `keyHash`) was made by the act event `act`, which the log
   * holds at `act.seq` (the loop's `actEvent` returns it as logged).
   */
  add(key: string, hash: number, act: ActStep): void {
    if (this.#firstSeq < 0) {
      this.#firstHash = hash;
      this.#firstSeq = act.seq;
      return;
    }
    let rest = this.#rest;
    const at = this.#restUsed;
    if (rest === undefined || at === rest.length) {
      // Grown by hand: push would leave ~16 spare slots per run in flight.
      const grown = new Array<number>(rest === undefined ? 2 : rest.length * 2);
      for (let i = 0; i < at; i++) grown[i] = rest?.[i] as number;
      this.#rest = rest = grown;
    }
    rest[at] = hash;
    rest[at + 1] = act.seq;
    this.#restUsed = at + 2;
  }

  /** The step of the act event at `seq` when its action's key is `key`. */
  #confirmed(seq: number, key: string): number | undefined {
    const event = this.#log.events[seq];
    if (event?.type !== 'step' || event.phase !== 'act') return undefined;
    return actionKey(event.tool, event.input) === key ? event.index : undefined;
  }
}

/** FNV-1a over the key's UTF-16 code units, 30 bits: always a small integer (no heap number). */
export function keyHash(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash & 0x3fffffff;
}

/** Same tool and canonically equal input (key order ignored) give the same key. */
export function actionKey(tool: string, input: unknown): string {
  // Flat (join copies once), and only ever held while its step runs (the guard keeps the hash).
  return [tool, canonicalJson(input)].join('\u0000');
}
