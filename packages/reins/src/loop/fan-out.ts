import type { DecisionParse } from '../decision/index.js';
import type { ActStep } from '../events.js';
import type { ModelResult } from '../model.js';
import type { Observation } from '../observation.js';
import type { ActionKeys } from './action-keys.js';
import { actOn } from './execute-action.js';
import type { PlannedCall } from './resolve-turn.js';
import type { LoopContext } from './loop-context.js';
import { endAborted, type RunTally } from './run-ending.js';
import { scheduleCalls } from './schedule-calls.js';
import { refusal, runsAlone } from './step-rules.js';

/** What a step of several calls needs from its loop. */
export interface FanOutLoop {
  readonly ctx: LoopContext;
  /** The repeated-action guard's state (see `resolveTurn`). */
  readonly actions: ActionKeys;
  forcedFinal: boolean;
  /** Logs an act with a new id; returns the event as logged. */
  actEvent(step: number, tool: string, input: unknown, actStart: number): ActStep;
  /** Appends the observe event; returns when it ended. */
  observed(step: number, observation: Observation, actStart: number): number;
}

/**
 * The calls of one step, in order: read-only calls (and refusals) run side by side, at
 * most `toolConcurrency` at a time; a call that may change something waits for those
 * before it and runs alone. Nothing starts after the run is aborted.
 */
export async function actMany(
  loop: FanOutLoop,
  step: number,
  calls: readonly PlannedCall[],
  reasonEnd: number,
): Promise<Observation[]> {
  const act = loop.ctx.act;
  const observations = new Array<Observation>(calls.length);
  await scheduleCalls(
    calls,
    loop.ctx.limits.toolConcurrency,
    (call) => call.kind === 'run' && runsAlone(act.registry, call.tool),
    () => act.signal.aborted,
    (call, i) => startCall(loop, step, call, i === 0 ? reasonEnd : undefined, observations, i),
  );
  return observations;
}

/** Starts one call of a many-call step; `undefined` when it already settled. */
function startCall(
  loop: FanOutLoop,
  step: number,
  call: PlannedCall,
  startedAt: number | undefined,
  into: Observation[],
  at: number,
): Promise<void> | undefined {
  const { deps, act } = loop.ctx;
  const actStart = startedAt ?? deps.now();
  const { tool, input } = call;
  const logged = loop.actEvent(step, tool, input, actStart);
  const actId = logged.actId;
  const settle = (observation: Observation): void => {
    into[at] = observation;
    loop.observed(step, observation, actStart);
  };
  if (call.kind === 'refuse') {
    if (call.code === 'REPEATED_ACTION') loop.forcedFinal = true;
    settle(refusal(actId, tool, call.code, call.message));
    return undefined;
  }
  loop.actions.add(call.hash, logged);
  const acted = actOn({ actId, tool, input }, act, actStart);
  if (!(acted instanceof Promise)) return void settle(acted);
  return acted.then(settle);
}

/** A step of several calls: acted (`actMany`), then remembered in the prompt. True when the run goes on. */
export async function actManyStep(
  loop: FanOutLoop & RunTally,
  step: number,
  calls: readonly PlannedCall[],
  reasonEnd: number,
  result: Extract<ModelResult, { ok: true }>,
  parse: DecisionParse,
): Promise<boolean> {
  const observations = await actMany(loop, step, calls, reasonEnd);
  if (loop.ctx.act.signal.aborted) {
    endAborted(loop);
    return false;
  }
  loop.completed = step;
  if (parse.ok) {
    const { text, toolCalls } = result;
    const native = toolCalls !== undefined && toolCalls.length > 0;
    loop.ctx.prompt.rememberMany(parse.value, observations, native ? { text, toolCalls } : undefined);
  }
  return true;
}
