import type { ActStep, RunEvent } from '../events.js';
import { canonicalJson } from '../util/canonical-json.js';
import { jsonHash, sameJson, stringHash } from '../util/json-hash.js';

/**
 * The actions a run has made, for the repeated-action guard: action (tool and input, the
 * input's keys in any order) → the model step that first made it. Only numbers are kept —
 * each action's `actionHash` and the sequence number of its `act` event — since the run's log
 * holds the tool and input: a hash that matches is confirmed against that act's tool and
 * input (`sameJson`), so two actions whose hashes collide are never taken for each other. No
 * key text is made: hashing the value walks it once, where writing it out as canonical JSON
 * and hashing the text cost ~6% of a short run (see bench/loop-overhead). The first action is kept in two fields,
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

  /** The step that first made the action (`tool` with `input`, whose `actionHash` is `hash`), if one did. */
  get(tool: string, input: unknown, hash: number): number | undefined {
    if (this.#firstSeq >= 0 && this.#firstHash === hash) {
      const step = this.#confirmed(this.#firstSeq, tool, input);
      if (step !== undefined) return step;
    }
    const rest = this.#rest;
    if (rest === undefined) return undefined;
    for (let i = 0; i < this.#restUsed; i += 2) {
      if (rest[i] !== hash) continue;
      const step = this.#confirmed(rest[i + 1] as number, tool, input);
      if (step !== undefined) return step;
    }
    return undefined;
  }

  /**
   * An action `get` did not find (`hash` its `actionHash`) was made by the act event `act`,
   * which the log holds at `act.seq` (the loop's `actEvent` returns it as logged).
   */
  add(hash: number, act: ActStep): void {
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

  /** The step of the act event at `seq` when its action is `tool` with `input`. */
  #confirmed(seq: number, tool: string, input: unknown): number | undefined {
    const event = this.#log.events[seq];
    if (event?.type !== 'step' || event.phase !== 'act') return undefined;
    return sameAction(tool, input, event) ? event.index : undefined;
  }
}

/** `other` is the same action as `tool` with `input`: the same tool, and the same JSON in any key order. */
export function sameAction(
  tool: string,
  input: unknown,
  other: { readonly tool: string; readonly input: unknown },
): boolean {
  return other.tool === tool && sameJson(other.input, input);
}

/**
 * The guard's hash of an action, 30 bits (always a small integer, no heap number): the same
 * for the same tool with inputs that are the same JSON in any key order.
 */
export function actionHash(tool: string, input: unknown): number {
  return (Math.imul(stringHash(tool), 0x01000193) ^ jsonHash(input)) & 0x3fffffff;
}

/**
 * Same tool and canonically equal input (key order ignored) give the same key: a text form of
 * the action, for callers outside the loop (the loop compares by `actionHash` and `sameJson`).
 */
export function actionKey(tool: string, input: unknown): string {
  // Flat (join copies once), and only ever held while its step runs (the guard keeps the hash).
  return [tool, canonicalJson(input)].join('\u0000');
}
