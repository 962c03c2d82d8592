import type { ErrorCode } from '../errors.js';
import type { Degraded, Observation } from '../observation.js';
import { needsApproval, type AnyTool } from '../tool.js';
import { invokeTool, type Invocation } from './invoke-tool.js';
import type { ApprovalOutcome } from './approvals.js';
import {
  checkAgainst,
  copyPlain,
  describeIssues,
  strayIssues,
  type Checked,
  type Issue,
} from './validate-io.js';
import { toolSpec } from './tool-catalog.js';
import { sandboxWithStrayKeys } from './sandbox-input.js';
import type { ReplayedAct } from './run-replay.js';
import type { ActEnv, ActRequest } from './act-env.js';
import { observe, type Outcome } from './observe.js';
import { checkResult } from './check-result.js';

/**
 * Act and observe: the tool must exist and the input pass its schema (no stray keys), then
 * it runs under its timeout and the run's signal; its result must pass the tool status,
 * the output schema and the business rule, and is masked (PII) in its JSON form. Never
 * throws: every outcome is an `Observation`.
 */
export async function executeAction(request: ActRequest, env: ActEnv): Promise<Observation> {
  return actOn(request, env);
}

/**
 * `executeAction` without the promise when the tool answered synchronously: the loop's hot
 * path saves the microtask hops (see bench/).
 */
export function actOn(
  request: ActRequest,
  env: ActEnv,
  startedAt?: number,
): Observation | Promise<Observation> {
  const started = startedAt ?? env.deps.now();
  const tool = env.registry.get(request.tool);
  if (tool === undefined) {
    const available = [...env.registry.keys()].join(', ') || 'none';
    const message = `no tool named ${JSON.stringify(request.tool)}; available: ${available}`;
    const outcome: Outcome = { code: 'UNKNOWN_TOOL', message, layer: 'input' };
    return observe(request, env, started, 'rejected', outcome, 'runtime');
  }
  const input = checkedInput(request, env, tool);
  if (!input.ok) {
    const outcome: Outcome = {
      code: 'INVALID_PARAMETER',
      message: describeIssues(input.issues),
      details: input.issues,
      layer: 'input',
    };
    return observe(request, env, started, 'rejected', outcome, 'runtime');
  }
  const gate = env.approval;
  if (gate !== undefined && needsApproval(tool)) {
    return gate.requestApproval(request.actId, tool.name, input.value).then((outcome) => {
      if (outcome.kind !== 'approved') return refusedByUser(request, env, started, outcome);
      // The approval event logged `input.value`: the tool gets a copy of its own, of exactly that.
      const approved = invokeAndCheck(request, env, started, tool, copyPlain(input.value));
      const stamp = (o: Observation): Observation => ({ ...o, approval: outcome });
      return approved instanceof Promise ? approved.then(stamp) : stamp(approved);
    });
  }
  return invokeAndCheck(request, env, started, tool, input.value);
}

/**
 * The tool's input from the model's: sandboxed (a fresh copy, strings trimmed and bounded) and
 * parsed by the tool's schema, refusing keys its JSON Schema does not name.
 */
function checkedInput(request: ActRequest, env: ActEnv, tool: AnyTool): Checked {
  const inputSchema = toolSpec(tool).inputSchema; // (its first build may run the schema's code)
  // The shared arrays, unless an act is being sandboxed already: a getter in the input (an
  // adapter's object, not a model's JSON) can start another act in the middle of the walk.
  const shared = !sandboxing;
  const sandboxIssues = shared ? SANDBOX_ISSUES : [];
  const stray = shared ? STRAY_KEYS : [];
  // (Setting an array's length is a runtime call: only when there is something to empty.)
  if (sandboxIssues.length !== 0) sandboxIssues.length = 0;
  if (stray.length !== 0) stray.length = 0;
  sandboxing = true;
  let given: unknown;
  try {
    given = sandboxWithStrayKeys(
      request.input,
      inputSchema,
      env.maxStringChars ?? DEFAULT_STRING_CHARS,
      sandboxIssues,
      stray,
    );
  } finally {
    if (shared) sandboxing = false;
  }
  if (sandboxIssues.length !== 0) return { ok: false, issues: sandboxIssues.slice() };
  // Taken out before the schema runs: its code could start another act (which empties the array).
  const strayFound = stray.length === 0 ? undefined : strayIssues(stray);
  const parsed = checkAgainst(tool.input, given);
  return !parsed.ok || strayFound === undefined ? parsed : { ok: false, issues: strayFound };
}

/**
 * The sandbox's issues and the stray keys, collected in one array each for every act (an
 * empty array per act was ~40 bytes of garbage per tool step): emptied before each act,
 * copied out when an act has any, and taken out before the tool's schema runs. An act
 * sandboxed while another is (`sandboxing`: started from a getter of the other's input)
 * collects into arrays of its own.
 */
const SANDBOX_ISSUES: Issue[] = [];
const STRAY_KEYS: string[] = [];
let sandboxing = false;

function refusedByUser(
  request: ActRequest,
  env: ActEnv,
  started: number,
  outcome: ApprovalOutcome,
): Observation {
  const [code, message]: [ErrorCode, string] =
    outcome.kind === 'declined'
      ? [
          'PERMISSION_DENIED',
          `the user declined this call of ${request.tool}; do not retry it, tell the user what was not done`,
        ]
      : outcome.kind === 'cancelled'
        ? [
            'CANCELLED',
            `the run was cancelled before this call of ${request.tool} was approved; it was not made`,
          ]
        : ['TIMEOUT', `no approval for this call of ${request.tool} arrived in time; it was not made`];
  const observation = observe(
    request,
    env,
    started,
    'rejected',
    { code, message, layer: 'guard' },
    'runtime',
  );
  return { ...observation, approval: outcome };
}

function invokeAndCheck(
  request: ActRequest,
  env: ActEnv,
  started: number,
  tool: AnyTool,
  input: unknown,
): Observation | Promise<Observation> {
  const replayed = env.replay?.act(request.actId, tool);
  if (replayed !== undefined) return replayedObservation(request, env, started, replayed);
  const invoked = invokeTool(tool, input, request.actId, env);
  // A synchronous tool's result is checked at once: no closure per act (see bench/).
  if (!(invoked instanceof Promise)) return checkedResult(request, env, started, tool, input, invoked);
  return invoked.then((settled) => checkedResult(request, env, started, tool, input, settled));
}

/** The settled call checked (`checkResult`), then its fallback when it failed in a way one may cover. */
function checkedResult(
  request: ActRequest,
  env: ActEnv,
  started: number,
  tool: AnyTool,
  input: unknown,
  settled: Invocation,
): Observation | Promise<Observation> {
  const observation = checkResult(request, env, started, tool, input, settled);
  return observation instanceof Promise
    ? observation.then((large) => orFallback(large, tool, request, env, started))
    : orFallback(observation, tool, request, env, started);
}

/**
 * An act of a rebuilt run's history: its recorded observation, or — when it may have changed
 * something before the crash and left no observation — `OUTCOME_UNKNOWN`, and the run stops
 * for a person to check (the call is not made again).
 */
function replayedObservation(
  request: ActRequest,
  env: ActEnv,
  started: number,
  replayed: Exclude<ReplayedAct, undefined>,
): Observation {
  if (replayed.kind === 'observed') return replayed.observation;
  const message = `the process stopped while ${request.tool} was running; it may or may not have taken effect, so it was not run again: a person should check`;
  const observation = observe(
    request,
    env,
    started,
    'error',
    { code: 'OUTCOME_UNKNOWN', message, layer: 'guard' },
    'runtime',
  );
  env.replay?.onUnknown();
  return observation;
}

/** The parameter sandbox's cap for strings whose schema sets no `maxLength` (seed 003 §4.4). */
export const DEFAULT_STRING_CHARS = 100;

/** Failures that a fallback may cover: the tool (or what is behind it) is failing, not the input. */
const FALLBACK_CODES: ReadonlySet<ErrorCode> = new Set([
  'SERVICE_UNAVAILABLE',
  'TIMEOUT',
  'RATE_LIMITED',
  'INTERNAL',
  'INVALID_OUTPUT',
]);

/**
 * When the tool failed in a way its fallback can cover (and the run goes on), the fallback
 * tool answers the same input through the same checks, labeled `degraded`. One level: a
 * fallback's own fallback is not followed.
 */
function orFallback(
  observation: Observation,
  tool: AnyTool,
  request: ActRequest,
  env: ActEnv,
  started: number,
): Observation | Promise<Observation> {
  const error = observation.error;
  if (
    tool.fallback === undefined ||
    request.noFallback === true ||
    error === undefined ||
    !FALLBACK_CODES.has(error.code)
  )
    return observation;
  if (env.signal.aborted) return observation;
  const backup = env.registry.get(tool.fallback.tool);
  if (backup === undefined) return observation;
  const degraded: Degraded = {
    tool: tool.name,
    fallback: backup.name,
    reason: { code: error.code, message: error.message },
    lost: tool.fallback.lost,
  };
  // Only a fallback that answered makes a degraded answer; one that failed too leaves the failure, saying so.
  const label = (answer: Observation): Observation =>
    answer.status === 'ok'
      ? { ...answer, tool: tool.name, degraded }
      : {
          ...observation,
          error: {
            ...error,
            message: `${error.message}; its fallback ${backup.name} failed too: ${answer.error?.code ?? 'INTERNAL'}: ${answer.error?.message ?? ''}`,
          },
        };
  const answered = actOn({ ...request, tool: backup.name, noFallback: true }, env, started);
  return answered instanceof Promise ? answered.then(label) : label(answered);
}
