import { decimalDelta, decimalSum } from './decimal.js';
import { isObject, setKey, type Json, type JsonObject } from './json.js';

/** Where the times of an event are measured from: the run's previous event and its first. */
export interface TimeOrigin {
  /** The previous event's `at` (0 for the first event, or when it had none). */
  readonly previousAt: number;
  /** The first event's `at` (a `done`'s `durationMs` is measured from it); absent while it is the one coded. */
  readonly firstAt: number | undefined;
}

/** Fields stored relative to the event's own `at`: how long before it (positive), or after it. */
const BEFORE_AT = ['startedAt', 'endedAt'] as const;
const AFTER_AT = ['expiresAt'] as const;

const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);
const num = (v: Json | undefined): number | undefined => (typeof v === 'number' ? v : undefined);

/**
 * What an event's `durationMs` is expected to be: `endedAt − startedAt` for a step, the time
 * since the run's first event otherwise (a `done`). Float arithmetic, as the runtime does it.
 */
function expectedDuration(event: JsonObject, origin: TimeOrigin): number {
  const startedAt = num(event['startedAt']);
  const endedAt = num(event['endedAt']);
  if (startedAt !== undefined && endedAt !== undefined) return endedAt - startedAt;
  const at = num(event['at']);
  return at !== undefined ? at - (origin.firstAt ?? at) : 0;
}

/**
 * A number as its exact decimal difference from `reference` (negated with `sign: -1`, so
 * times before the reference are positive: a bare negative integer is a reference);
 * anything else, or a difference that is not exact, as `[value]`.
 */
function relative(value: Json, reference: number, sign: 1 | -1 = 1): Json {
  const delta = typeof value === 'number' ? decimalDelta(value, reference) : undefined;
  return delta === undefined ? [value] : sign * delta;
}

function absolute(stored: Json, reference: number, sign: 1 | -1 = 1): Json {
  if (typeof stored === 'number') return decimalSum(reference, sign * stored);
  if (Array.isArray(stored) && stored.length === 1) return stored[0] as Json;
  throw new RangeError(`stored event is malformed: a time is ${JSON.stringify(stored)}`);
}

/** An observation's usual `source`: `tool:<its tool>`. */
const toolSource = (observation: JsonObject): string => `tool:${String(observation['tool'])}`;

/**
 * The event with its times made small and exact: `at` from the previous event's, the step's
 * start and end (and a pause's expiry) from its own `at`, `durationMs` from what it should
 * be (usually 0, then left out of a diff), an observation's `durationMs` likewise and
 * its `source` as `0` when it is the usual `tool:<tool>`. Same keys
 * in the same order.
 */
export function toRelative(event: JsonObject, origin: TimeOrigin): JsonObject {
  const relativeEvent: JsonObject = { ...event };
  const at = num(event['at']) ?? 0;
  if (hasOwn(event, 'at')) relativeEvent['at'] = relative(event['at'] as Json, origin.previousAt);
  for (const key of BEFORE_AT)
    if (hasOwn(event, key)) relativeEvent[key] = relative(event[key] as Json, at, -1);
  for (const key of AFTER_AT) if (hasOwn(event, key)) relativeEvent[key] = relative(event[key] as Json, at);
  if (hasOwn(event, 'durationMs'))
    relativeEvent['durationMs'] = relative(event['durationMs'] as Json, expectedDuration(event, origin));
  const observation = event['observation'];
  if (isObject(observation)) {
    const relativeObservation = { ...observation };
    if (hasOwn(observation, 'durationMs'))
      relativeObservation['durationMs'] = relative(
        observation['durationMs'] as Json,
        expectedDuration(event, origin),
      );
    if (hasOwn(observation, 'source')) {
      const source = observation['source'] as Json;
      relativeObservation['source'] =
        source === toolSource(observation) ? 0 : typeof source === 'string' ? source : [source];
    }
    relativeEvent['observation'] = relativeObservation;
  }
  return relativeEvent;
}

/** The inverse of `toRelative`. */
export function fromRelative(relativeEvent: JsonObject, origin: TimeOrigin): JsonObject {
  const event: JsonObject = {};
  for (const key of Object.keys(relativeEvent)) setKey(event, key, relativeEvent[key] as Json);
  if (hasOwn(event, 'at')) event['at'] = absolute(event['at'] as Json, origin.previousAt);
  const at = num(event['at']) ?? 0;
  for (const key of BEFORE_AT) if (hasOwn(event, key)) event[key] = absolute(event[key] as Json, at, -1);
  for (const key of AFTER_AT) if (hasOwn(event, key)) event[key] = absolute(event[key] as Json, at);
  if (hasOwn(event, 'durationMs'))
    event['durationMs'] = absolute(event['durationMs'] as Json, expectedDuration(event, origin));
  const observation = event['observation'];
  if (isObject(observation)) {
    const plainObservation = { ...observation };
    if (hasOwn(observation, 'durationMs'))
      plainObservation['durationMs'] = absolute(
        observation['durationMs'] as Json,
        expectedDuration(event, origin),
      );
    if (hasOwn(observation, 'source')) {
      const source = observation['source'] as Json;
      plainObservation['source'] =
        source === 0 ? toolSource(observation) : Array.isArray(source) ? (source[0] ?? null) : source;
    }
    event['observation'] = plainObservation;
  }
  return event;
}
