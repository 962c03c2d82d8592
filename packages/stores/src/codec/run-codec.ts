import type { RunEvent } from 'reins';
import { JsonIds } from './json-ids.js';
import { isObject, sameJson, setKey, type Json, type JsonObject } from './json.js';
import { plainJson } from './plain-json.js';
import { PRESET_KEYS, PRESET_VALUES } from './preset-keys.js';
import type { PromptTexts } from './prompt-texts.js';
import { RefTable } from './ref-table.js';
import { fromRelative, toRelative } from './relative-times.js';
import { decodeValue } from './value-decoder.js';
import { ValueEncoder } from './value-encoder.js';

/** The version every stored body carries (`"v"`); a body of another version is refused, never guessed at. */
export const CODEC_VERSION = 1;
/**
 * The version of a body that refers to texts stored apart (`PromptTexts`): a build that
 * cannot fetch them refuses it rather than show a reference as a prompt.
 */
export const CODEC_VERSION_WITH_TEXTS = 2;

/** How many earlier events of the same kind an event may be stored against (`#likeliestBase` picks one). */
const BASE_CANDIDATES = 3;

/** Reins' own keys and values, known to both sides before any event (one object: its table is built once). */
const PRESET = { keys: PRESET_KEYS, values: PRESET_VALUES };

const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

/** A stored body this build cannot read (written by a newer codec, or not a body at all). */
export class StoredEventError extends Error {
  constructor(
    readonly code: 'CODEC_VERSION' | 'MALFORMED',
    message: string,
  ) {
    super(message);
    this.name = 'StoredEventError';
  }
}

/**
 * What an event may be stored against: the last events of its kind (type, phase, source,
 * tool), and of its broader kind (type, phase) — an observation of another tool still shares
 * most of its shape.
 */
function kindsOf(event: JsonObject): [string, string] {
  const observation = event['observation'];
  const tool = event['tool'] ?? (isObject(observation) ? observation['tool'] : undefined);
  const [type, phase, source, name] = [event['type'], event['phase'], event['source'], tool].map((part) =>
    typeof part === 'string' ? part : '',
  );
  return [`${type}\u0001${phase}\u0001${source}\u0001${name}`, `${type}\u0001${phase}`];
}

/** The keys of an event with `runId` and `seq` put back: where `positions` says, else just before `at` (or last). */
function withIdentity(keys: readonly string[], positions: readonly number[] | undefined): string[] {
  const all = [...keys];
  if (positions === undefined) {
    const at = all.indexOf('at');
    all.splice(at === -1 ? all.length : at, 0, 'runId', 'seq');
  } else {
    const named: [string, number][] = [
      ['runId', positions[0] ?? 0],
      ['seq', positions[1] ?? 0],
    ];
    for (const [key, position] of named.sort((a, b) => a[1] - b[1])) all.splice(position, 0, key);
  }
  return all;
}

/**
 * One run's event codec: each event is stored as what changed from an earlier event of its
 * kind (`ValueEncoder`), with its times relative and exact (`toRelative`), repeated values as
 * references (`RefTable`), and without `runId` and `seq` (the row has them).
 *
 * Events go through in `seq` order, and the state is what decoding them built: a store that
 * loaded a run continues writing it with the same state. `encode` decodes what it wrote and
 * throws (leaving the state as it was) unless that gives back the event's exact JSON.
 *
 * What is preserved is the event's JSON: `decode(encode(e))` has the JSON text of `e` (keys
 * whose value is `undefined` are left out, as `JSON.stringify` does; key order is kept).
 */
export class RunCodec {
  readonly #json = new JsonIds();
  readonly #table = RefTable.withPreset(this.#json, PRESET);
  readonly #encoder = new ValueEncoder(this.#table, this.#json);
  readonly #relatives: JsonObject[] = [];
  readonly #kinds = new Map<string, number[]>();
  #previousAt = 0;
  #firstAt: number | undefined;
  readonly #texts: PromptTexts | undefined;

  /** @param texts where long system prompts of kept prompts are stored apart (none: kept in the bodies) */
  constructor(texts?: PromptTexts) {
    this.#texts = texts;
  }

  /** How many events went through (the next one's `seq`). */
  get count(): number {
    return this.#relatives.length;
  }

  /**
   * The stored body of the run's next event (JSON text). With `texts`, the texts the body
   * refers to are added to `usedTexts` (by hash): the caller stores them before the body.
   */
  encode(event: RunEvent, usedTexts: Map<string, string> = new Map()): string {
    // The event as JSON gives it back, sharing the caller's objects (they are not kept).
    const asJson = plainJson(event);
    const plain = this.#texts === undefined ? asJson : this.#texts.intern(asJson, usedTexts);
    const { runId, seq } = plain;
    if (typeof runId !== 'string' || seq !== this.count)
      throw new RangeError(
        `codec: event ${String(runId)}#${String(seq)} is not the next (seq ${this.count})`,
      );
    const keys = Object.keys(plain);
    // Rest properties are defined, not assigned: a `__proto__` key stays an own key.
    const { runId: _runId, seq: _seq, ...rest } = plain;
    const positions = withIdentity(Object.keys(rest), undefined).every((k, i) => keys[i] === k)
      ? undefined
      : [keys.indexOf('runId'), keys.indexOf('seq')];
    const relativeEvent = toRelative(rest, { previousAt: this.#previousAt, firstAt: this.#firstAt });
    const mark = this.#table.mark();
    try {
      const base = this.#likeliestBase(relativeEvent, plain);
      const stored = this.#encoder.encode(
        relativeEvent,
        base === undefined ? undefined : this.#relatives[base],
        false,
      );
      this.#table.rollback(mark);
      const body = JSON.stringify({
        v: plain === asJson ? CODEC_VERSION : CODEC_VERSION_WITH_TEXTS,
        ...(base === undefined ? {} : { b: seq - base }),
        ...(positions === undefined ? {} : { p: positions }),
        d: stored,
      });
      this.#check(body, plain, runId, seq);
      return body;
    } finally {
      // The caller's objects got numbers by identity; the caller may change them later.
      this.#json.forget(relativeEvent);
    }
  }

  /**
   * The run's next event back from its stored body. A body that refers to texts stored apart
   * needs them held by `texts` (`PromptTexts.missingIn` says which to fetch first).
   */
  decode(body: string, runId: string, seq: number): RunEvent {
    // A copy: the state keeps its own values, whatever the caller does with the event.
    const event = JSON.parse(JSON.stringify(this.#decode(body, runId, seq))) as JsonObject;
    // Only a version-2 body refers to stored texts (`JSON.stringify` writes `v` first).
    const withTexts = this.#texts !== undefined && body.startsWith(`{"v":${CODEC_VERSION_WITH_TEXTS},`);
    const expanded = withTexts ? this.#texts.expand(event, `stored event ${runId}#${seq}`) : event;
    return expanded as unknown as RunEvent;
  }

  /** `undo` collects what `#advance` replaced, for `#check` to put back. */
  #decode(body: string, runId: string, seq: number, undo?: [string, number[] | undefined][]): JsonObject {
    if (seq !== this.count)
      throw new RangeError(`codec: event ${runId}#${seq} is not the next (seq ${this.count})`);
    let envelope: Json;
    try {
      envelope = JSON.parse(body) as Json;
    } catch {
      throw new StoredEventError('MALFORMED', `stored event ${runId}#${seq} is not JSON`);
    }
    const version = isObject(envelope) ? envelope['v'] : envelope;
    if (version !== CODEC_VERSION && (version !== CODEC_VERSION_WITH_TEXTS || this.#texts === undefined))
      throw new StoredEventError(
        'CODEC_VERSION',
        `stored event ${runId}#${seq} has codec version ${JSON.stringify(version)}; this ${this.#texts === undefined ? 'reader (without stored texts)' : 'build'} reads ${this.#texts === undefined ? `version ${CODEC_VERSION}` : `versions ${CODEC_VERSION} and ${CODEC_VERSION_WITH_TEXTS}`} only`,
      );
    if (!isObject(envelope))
      throw new StoredEventError('MALFORMED', `stored event ${runId}#${seq} is not an object`);
    const { b, p, d } = envelope;
    const base = typeof b === 'number' ? this.#relatives[seq - b] : undefined;
    if ((b !== undefined && base === undefined) || d === undefined)
      throw new StoredEventError('MALFORMED', `stored event ${runId}#${seq} refers to no earlier event`);
    const relativeEvent = decodeValue(d, base, this.#table, false);
    if (!isObject(relativeEvent))
      throw new StoredEventError('MALFORMED', `stored event ${runId}#${seq} is not an object`);
    const rest = fromRelative(relativeEvent, { previousAt: this.#previousAt, firstAt: this.#firstAt });
    const event: JsonObject = {};
    const positions = Array.isArray(p) ? p.filter((n): n is number => typeof n === 'number') : undefined;
    for (const key of withIdentity(Object.keys(rest), positions))
      setKey(event, key, key === 'runId' ? runId : key === 'seq' ? seq : (rest[key] as Json));
    this.#advance(relativeEvent, event, undo);
    return event;
  }

  /**
   * The earlier event to store this one against: of the last events of its kinds (`kindsOf`),
   * the one whose top-level values repeat the most of this one's JSON text. Encoding against
   * each candidate and keeping the smallest cost 2.2 encodes per event on the recorded kitchen
   * runs; this pick costs one, for 0.3% more bytes (storing the event whole instead never came
   * out smaller there, so it is not weighed). Undefined when no event of its kinds came before.
   */
  #likeliestBase(relativeEvent: JsonObject, plain: JsonObject): number | undefined {
    const [kind, broad] = kindsOf(plain);
    const candidates = [...(this.#kinds.get(kind) ?? [])];
    for (const seq of this.#kinds.get(broad) ?? []) if (!candidates.includes(seq)) candidates.push(seq);
    if (candidates.length < 2) return candidates[0];
    const keys = Object.keys(relativeEvent);
    let best: { base: number; shared: number } | undefined;
    for (const base of candidates) {
      const previous = this.#relatives[base];
      if (previous === undefined) continue;
      let shared = 0;
      for (const key of keys) {
        const value = relativeEvent[key] as Json;
        if (this.#encoder.same(value, hasOwn(previous, key) ? previous[key] : undefined))
          shared += this.#json.length(value);
      }
      if (best === undefined || shared > best.shared) best = { base, shared };
    }
    return best?.base;
  }

  #advance(relativeEvent: JsonObject, event: JsonObject, undo?: [string, number[] | undefined][]): void {
    const seq = this.#relatives.push(relativeEvent) - 1;
    for (const kind of kindsOf(event)) {
      const seqs = this.#kinds.get(kind);
      undo?.push([kind, seqs]);
      this.#kinds.set(kind, [seq, ...(seqs ?? [])].slice(0, BASE_CANDIDATES));
    }
    const at = typeof event['at'] === 'number' ? event['at'] : 0;
    if (seq === 0) this.#firstAt = at;
    this.#previousAt = at;
  }

  /** Decodes `body` into the state; if it is not the event's JSON exactly, puts the state back and throws. */
  #check(body: string, plain: JsonObject, runId: string, seq: number): void {
    const mark = this.#table.mark();
    const before = { previousAt: this.#previousAt, firstAt: this.#firstAt };
    const undo: [string, number[] | undefined][] = [];
    let same = false;
    try {
      same = sameJson(this.#decode(body, runId, seq, undo), plain);
    } finally {
      if (!same) {
        this.#table.rollback(mark);
        this.#relatives.length = seq;
        for (const [kind, seqs] of undo.reverse())
          if (seqs === undefined) this.#kinds.delete(kind);
          else this.#kinds.set(kind, seqs);
        this.#previousAt = before.previousAt;
        this.#firstAt = before.firstAt;
      }
    }
    if (!same) throw new Error(`codec: event ${runId}#${seq} does not decode to itself (a codec bug)`);
  }
}
