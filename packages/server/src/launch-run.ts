import {
  chooseLimits,
  runAgent,
  runPlanAgent,
  type AgentRun,
  type JsonValue,
  type Principal,
  type RunEvent,
  type RunLimitsInput,
} from 'reins';
import { applyRunOptions, type RunOptions } from './run-options.js';
import { isPause } from './run-feed.js';
import type { RunBudget, RunHold } from './run-hold.js';
import type { RunEntry } from './run-registry.js';
import { watchRun } from './run-watcher.js';
import { TRACE_ID } from './run-trace-ids.js';
import { readTraceParent } from './trace-parent.js';
import type { AgentDefinition } from './server-options.js';
import { modelCallOf } from './model-call-event.js';
import type { ServerState } from './server-state.js';

/** Everything a run is started from — stored with a durable run, so it can be rebuilt after a restart. */
export interface RunRequest {
  readonly agent: string;
  readonly query: string;
  /** The trusted caller, from authentication (never from the body). */
  readonly principal: Principal;
  readonly options: RunOptions;
  readonly conversationId?: string | undefined;
  /** Earlier turns of the conversation, as shown to the model (after the agent's instructions). */
  readonly context?: string | undefined;
  /** The run's OpenTelemetry trace id, chosen at admission when the server's tracer can take it. */
  readonly traceId?: string | undefined;
  /**
   * The caller's span, as its W3C `traceparent` header named it (written back by
   * `formatTraceParent`): the run span is its child, in its trace (`traceId` is then the caller's).
   */
  readonly traceParent?: string | undefined;
}

/** How a run is launched: from scratch, or rebuilt from its stored `history`. */
export interface LaunchOptions {
  /** The stored log to rebuild the run from (replayed, then continued). */
  readonly history?: readonly RunEvent[] | undefined;
  /** The hold its admission took (a new run); absent: taken again here (rebuilt, or started by a worker). */
  readonly admitted?: RunHold | undefined;
  /**
   * How far this process watches the run: to its `end` (default), or to its next `stop` — a
   * worker of the shared mode, which lets go of a paused run (its hold stays reserved).
   */
  readonly until?: 'stop' | 'end';
}

/**
 * Starts (or, with `history`, rebuilds) a run of `definition`, registers it and watches it.
 * A new run comes with the `hold` its admission took; a rebuilt one takes its hold again here
 * (what is left of its worst case; its history's calls were charged when they were made).
 */
export function launchRun(
  s: ServerState,
  definition: AgentDefinition,
  request: RunRequest,
  runId: string,
  launch: LaunchOptions = {},
): RunEntry {
  const { history, admitted } = launch;
  const { model, limits } = applyRunOptions(definition, request.options);
  const controller = new AbortController();
  const gate = { open: true }; // closed when this process lets go of the run (nothing more is stored)
  const instructions = [definition.instructions, request.context].filter((x) => x !== undefined && x !== '');
  const run = startRun(definition, {
    query: request.query,
    model,
    tools: definition.tools ?? [],
    ...(limits === undefined ? {} : { limits }),
    ...(instructions.length === 0 ? {} : { instructions: instructions.join('\n\n') }),
    ...(definition.clarify === undefined ? {} : { clarify: definition.clarify }),
    ...(definition.answer === undefined ? {} : { answer: definition.answer }),
    ...(definition.stopNotice === undefined ? {} : { stopNotice: definition.stopNotice }),
    recordPrompts: definition.recordPrompts ?? s.recordPrompts,
    ...(request.conversationId === undefined ? {} : { conversationId: request.conversationId }),
    agent: request.agent,
    principal: request.principal,
    runId,
    signal: controller.signal,
    ...(s.policies === undefined ? {} : { policies: s.policies }),
    ...(s.deps.run === undefined ? {} : { deps: s.deps.run }),
    ...(s.durable === undefined ? {} : { durable: s.durable.sinkFor(runId, gate) }),
    ...(history === undefined ? {} : { history }),
  });
  const entry = s.registry.add(
    runId,
    request.principal.id,
    request.agent,
    run,
    () => controller.abort(),
    gate,
  );
  entry.traceId = request.traceId;
  entry.traceParent = readTraceParent(request.traceParent);
  const { conversationId } = request;
  if (conversationId !== undefined && s.conversations !== undefined) {
    const conversations = s.conversations;
    const started = history?.[0]?.at ?? s.deps.now();
    const turn = { runId, query: request.query, at: started };
    void entry.ended.then((record) =>
      // A turn of a deleted conversation (cancelled by the delete) does not bring it back.
      entry.forgotten
        ? undefined
        : conversations.end(request.principal.id, conversationId, turn, record, definition.turnAbout),
    );
  }
  const hold = admitted ?? rebuiltHold(s, request.principal.id, runId, history ?? [], limits, request.query);
  entry.watched = watchRun(entry, hold, s.watch, history?.length ?? 0, launch.until ?? 'end');
  for (const rollout of s.rollouts) rollout.observe(run).catch(() => undefined);
  return entry;
}

/**
 * The limits that bound what a run may spend (its quota hold, its slot's expiry); an `auto`
 * step limit is the one the run will choose from its query (or its history's start chose).
 */
export function runBudget(
  limits: RunLimitsInput | undefined,
  query: string,
  history?: readonly RunEvent[],
): RunBudget {
  const { maxSteps, deadlineMs, approvalTtlMs } = chooseLimits(limits, query, history).limits;
  return { maxSteps, deadlineMs, approvalTtlMs };
}

/** The hold of a rebuilt run: admitted when its history began; paused if the history ends at a pause. */
function rebuiltHold(
  s: ServerState,
  userId: string,
  runId: string,
  history: readonly RunEvent[],
  limits: RunLimitsInput | undefined,
  query: string,
): RunHold {
  const budget = runBudget(limits, query, history);
  const hold = s.quota.rebuilt(userId, runId, history[0]?.at ?? s.deps.now(), budget);
  const calls = history.filter((e) => modelCallOf(e) !== undefined).length;
  const last = history.at(-1);
  void hold.rebuild(calls, last?.type === 'done' && isPause(last.status));
  return hold;
}

/** A ReAct run, or a plan-and-execute run for `kind: 'plan'` agents: the same handle either way. */
function startRun(definition: AgentDefinition, options: Parameters<typeof runAgent>[0]): AgentRun {
  if (definition.kind === 'plan') {
    return runPlanAgent({
      ...options,
      ...(definition.validators === undefined ? {} : { validators: definition.validators }),
      ...(definition.maxPlanSteps === undefined ? {} : { maxPlanSteps: definition.maxPlanSteps }),
      ...(definition.maxReplans === undefined ? {} : { maxReplans: definition.maxReplans }),
    });
  }
  return runAgent({
    ...options,
    ...(definition.decisionFormat === undefined ? {} : { decisionFormat: definition.decisionFormat }),
  });
}

/** The request as the store keeps it (JSON). */
export function requestRecord(request: RunRequest): { readonly [key: string]: JsonValue } {
  return JSON.parse(JSON.stringify(request)) as { [key: string]: JsonValue };
}

/** The request back from the store; `undefined` when the row is not one this server wrote. */
export function readRequestRecord(
  agent: string,
  stored: { readonly [key: string]: JsonValue },
): RunRequest | undefined {
  const { query, principal, options } = stored;
  if (
    typeof query !== 'string' ||
    typeof principal !== 'object' ||
    principal === null ||
    Array.isArray(principal)
  )
    return undefined;
  if (typeof (principal as { id?: unknown }).id !== 'string') return undefined;
  const conversationId = typeof stored['conversationId'] === 'string' ? stored['conversationId'] : undefined;
  const context = typeof stored['context'] === 'string' ? stored['context'] : undefined;
  const traceId = storedTraceId(stored);
  const traceParent = stored['traceParent'];
  return {
    agent,
    query,
    principal: principal as unknown as Principal,
    options: (typeof options === 'object' && options !== null ? options : {}) as RunOptions,
    conversationId,
    context,
    ...(traceId === undefined ? {} : { traceId }),
    ...(typeof traceParent === 'string' ? { traceParent } : {}),
  };
}

/** The trace id stored with a run's request (`undefined` for a run stored untraced, or by an older server). */
export function storedTraceId(stored: { readonly [key: string]: JsonValue }): string | undefined {
  const traceId = stored['traceId'];
  return typeof traceId === 'string' && TRACE_ID.test(traceId) ? traceId : undefined;
}
