/**
 * The planner's reply shape, checked by hand (it was a zod schema; `import('reins')` no longer
 * loads zod): `{thought?, reasoning?, steps?, ask?}`, strict (a step id is never `task`, which
 * `task.<action>.output` references read). Same rules and messages as
 *
 *   step  = strictObject({ id: string().regex(STEP_ID), action: string().trim().min(1).max(64),
 *             input: record(string(), unknown()).default({}), dependsOn: array(string()).max(50).default([]) })
 *   reply = strictObject({ thought: string().optional(), reasoning: unknown().optional(),
 *             steps: array(step).min(1).max(100).optional(), ask: string().trim().min(1).optional() })
 */
import type { Validation } from '../decision/parse-structured.js';
import type { PlanStep } from './plan-schema.js';
import {
  ShapeIssues,
  codePoints,
  copyRecord,
  invalidType,
  isObjectLike,
  isPlainObject,
  tooBig,
  tooSmall,
} from '../util/shape-issues.js';

export interface PlannerShape {
  readonly thought?: string | undefined;
  readonly reasoning?: unknown;
  readonly steps?: PlanStep[] | undefined;
  readonly ask?: string | undefined;
}

type Path = readonly (string | number)[];

const STEP_ID = /^[A-Za-z][\w-]{0,31}$/;
const REPLY_KEYS: ReadonlySet<string> = new Set(['thought', 'reasoning', 'steps', 'ask']);
const STEP_KEYS: ReadonlySet<string> = new Set(['id', 'action', 'input', 'dependsOn']);

export function checkPlannerShape(value: unknown): Validation<PlannerShape> {
  const issues = new ShapeIssues();
  if (!isObjectLike(value)) {
    issues.add([], invalidType('object', value));
    return { ok: false, message: issues.describe() };
  }
  const { thought, reasoning } = value;
  if (thought !== undefined && typeof thought !== 'string')
    issues.add(['thought'], invalidType('string', thought));
  const steps = value.steps === undefined ? undefined : checkSteps(value.steps, issues);
  const ask = value.ask === undefined ? undefined : trimmedString(value.ask, ['ask'], issues);
  issues.refuseUnknownKeys(value, REPLY_KEYS, []);
  if (issues.list.length > 0) return { ok: false, message: issues.describe() };
  return { ok: true, value: { thought: thought as string | undefined, reasoning, steps, ask } };
}

function checkSteps(value: unknown, issues: ShapeIssues): PlanStep[] | undefined {
  // zod judges the length first and then leaves the items alone.
  if (!Array.isArray(value)) issues.add(['steps'], invalidType('array', value));
  else if (value.length < 1) issues.add(['steps'], tooSmall('array', 1));
  else if (value.length > 100) issues.add(['steps'], tooBig('array', 100));
  else {
    const steps = value.map((step, i) => checkStep(step, ['steps', i], issues));
    return steps.every((step): step is PlanStep => step !== undefined) ? steps : undefined;
  }
  return undefined;
}

function checkStep(value: unknown, path: Path, issues: ShapeIssues): PlanStep | undefined {
  if (!isObjectLike(value)) {
    issues.add(path, invalidType('object', value));
    return undefined;
  }
  const before = issues.list.length;
  const { id } = value;
  if (typeof id !== 'string') issues.add([...path, 'id'], invalidType('string', id));
  else if (!STEP_ID.test(id))
    issues.add([...path, 'id'], 'a step id is a letter then letters, digits, _ or - (≤ 32)');
  // `task.…` references read the task state: a step named `task` could never be referenced.
  else if (id === 'task') issues.add([...path, 'id'], '"task" is reserved (task.<action>.output…)');
  const action = trimmedString(value.action, [...path, 'action'], issues, 64);
  let input: Record<string, unknown> = {};
  if (value.input !== undefined) {
    if (isPlainObject(value.input)) input = copyRecord(value.input);
    else issues.add([...path, 'input'], invalidType('record', value.input));
  }
  const dependsOn =
    value.dependsOn === undefined ? [] : checkDependsOn(value.dependsOn, [...path, 'dependsOn'], issues);
  issues.refuseUnknownKeys(value, STEP_KEYS, path);
  if (issues.list.length > before || typeof id !== 'string' || action === undefined) return undefined;
  return { id, action, input, dependsOn };
}

/** `z.array(z.string()).max(50)`; on a failure the issues say why and the value is not used. */
function checkDependsOn(value: unknown, path: Path, issues: ShapeIssues): string[] {
  if (!Array.isArray(value)) issues.add(path, invalidType('array', value));
  else if (value.length > 50) issues.add(path, tooBig('array', 50));
  else {
    value.forEach((dep, i) => {
      if (typeof dep !== 'string') issues.add([...path, i], invalidType('string', dep));
    });
    return [...(value as string[])];
  }
  return [];
}

/** `z.string().trim().min(1)`, then `.max(max)` when given. */
function trimmedString(value: unknown, path: Path, issues: ShapeIssues, max?: number): string | undefined {
  let message: string | undefined;
  if (typeof value !== 'string') message = invalidType('string', value);
  else if (value.trim().length < 1) message = tooSmall('string', 1);
  else if (max !== undefined && codePoints(value.trim()) > max) message = tooBig('string', max);
  else return value.trim();
  issues.add(path, message);
  return undefined;
}
