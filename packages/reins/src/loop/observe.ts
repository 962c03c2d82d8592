import type { ErrorCode } from '../errors.js';
import type { Observation, ObservationLayer, ObservationStatus } from '../observation.js';
import { maskPii, maskPiiText } from '../sanitize/mask-pii.js';
import type { BlobRef } from '../blob-store.js';
import type { ActEnv, ActRequest } from './act-env.js';

/** How an act turned out, before it is an `Observation` (see `observe`). */
export interface Outcome {
  readonly attempts?: number | undefined;
  readonly resultRef?: BlobRef;
  readonly result?: unknown;
  readonly code?: ErrorCode;
  readonly message?: string;
  readonly details?: unknown;
  readonly layer?: ObservationLayer;
}

/**
 * The observation of an act from its outcome: timed from `started`, reported to the tools'
 * metrics hook, its error message masked (PII); a row of another tenant reads as none.
 */
export function observe(
  request: ActRequest,
  env: ActEnv,
  started: number,
  status: ObservationStatus,
  outcome: Outcome,
  source = sourceOf(request.tool),
): Observation {
  const { actId, tool } = request;
  const attempts = outcome.attempts;
  const resultRef = outcome.resultRef;
  if (status === 'ok') {
    const observation = observeResult(request, env, started, outcome.result, source, attempts);
    if (attempts === undefined && resultRef === undefined) return observation;
    return {
      ...observation,
      ...(attempts === undefined ? {} : { attempts }),
      ...(resultRef === undefined ? {} : { resultRef }),
    };
  }
  const durationMs = env.deps.now() - started;
  const policies = env.policies;
  const layer = outcome.layer ?? 'status';
  let code = outcome.code ?? 'INTERNAL';
  let message = maskPiiText(outcome.message ?? '');
  let details = outcome.details;
  if (layer === 'status' && (code === 'NOT_FOUND' || code === 'PERMISSION_DENIED')) {
    // A row of another tenant and no row at all must look the same to the model.
    code = 'NOT_FOUND';
    message = `${tool}: not found`;
    details = undefined;
  }
  const error = {
    code,
    message,
    layer,
    ...(details === undefined ? {} : { details: safeMask(details) }),
  };
  if (policies?.reporting === true) {
    policies.report({ tool, status, code, durationMs, attempts: attempts ?? (source === 'runtime' ? 0 : 1) });
  }
  return attempts === undefined
    ? { actId, tool, status, error, source, durationMs }
    : { actId, tool, status, error, source, durationMs, attempts };
}

function safeMask(details: unknown): unknown {
  try {
    return maskPii(details);
  } catch {
    return '[details not JSON]';
  }
}

/**
 * `observe` of a result (no `Outcome` object made for it): timed, reported, the common
 * observation. `attempts` is reported only (`observe` adds it, and a stored reference).
 */
export function observeResult(
  request: ActRequest,
  env: ActEnv,
  started: number,
  result: unknown,
  source = sourceOf(request.tool),
  attempts?: number,
): Observation {
  const { actId, tool } = request;
  const durationMs = env.deps.now() - started;
  const policies = env.policies;
  if (policies?.reporting === true)
    policies.report({ tool, status: 'ok', durationMs, attempts: attempts ?? 1 });
  return okObservation(actId, tool, result, source, durationMs);
}

/**
 * The common observation: a call that answered, on its first attempt. One literal for it
 * (`step-events.ts` shapes its time field once: see `shareTimeBoxes`).
 */
export function okObservation(
  actId: string,
  tool: string,
  result: unknown,
  source: string,
  durationMs: number,
): Observation {
  return { actId, tool, status: 'ok', result, source, durationMs };
}

// `tool:<name>` per tool name, made once: every observation of a run holds its source.
const SOURCES = new Map<string, string>();
const MAX_SOURCES = 1_000; // names are the app's tools; past this (names made up at run time) they are not kept

function sourceOf(tool: string): string {
  let source = SOURCES.get(tool);
  if (source === undefined) {
    source = `tool:${tool}`;
    if (SOURCES.size < MAX_SOURCES) SOURCES.set(tool, source);
  }
  return source;
}
