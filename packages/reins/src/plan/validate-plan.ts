import type { AnyTool } from '../tool.js';
import { toolSpec } from '../loop/tool-catalog.js';
import { checkAgainst } from '../loop/validate-io.js';
import type { Plan, PlanProblem, PlanStep } from './plan-schema.js';
import { findRefs, valueAt } from './resolve-refs.js';
import type { TaskState } from './task-state.js';
import { topologicalOrder } from './find-cycle.js';
import type { DomainValidator } from './domain-validators.js';
import { isZodObject } from '../util/zod-duck.js';

export interface PlanValidationContext {
  readonly registry: ReadonlyMap<string, AnyTool>;
  /** Steps one plan may have. */
  readonly maxPlanSteps: number;
  /** Time left in the run (ms): the plan's critical path, at each tool's timeout, must fit. */
  readonly timeLeftMs: number;
  /** Timeout of a tool that declares none. */
  readonly defaultTimeoutMs: number;
  /** Outputs of steps already run (this run) and of earlier runs of the task. */
  readonly taskState: TaskState;
  readonly validators: readonly DomainValidator[];
}

export interface PlanValidation {
  readonly ok: boolean;
  readonly problems: readonly PlanProblem[];
  /** Execution order (dependencies first), when the graph has no cycle. */
  readonly order?: readonly string[] | undefined;
}

/**
 * Everything checked before anything runs: ids unique; every action registered; every input
 * passes its tool's schema (a reference stands for a value not known yet); every `dependsOn`
 * names an earlier-declared step (or one already run); no cycle (named with its steps); every
 * reference points at a dependency's output field, or at an output in the task state; the plan
 * fits the budget (steps, deadline); then the agent's domain validators.
 */
export function validatePlan(plan: Plan, ctx: PlanValidationContext): PlanValidation {
  const problems: PlanProblem[] = [];
  const steps = plan.steps;
  const done = ctx.taskState.completedSteps;
  if (steps.length > ctx.maxPlanSteps) {
    problems.push({
      code: 'too_many_steps',
      message: `the plan has ${steps.length} steps; at most ${ctx.maxPlanSteps} fit the run's budget`,
    });
  }
  const position = new Map<string, number>();
  steps.forEach((step, i) => {
    if (position.has(step.id) || done.has(step.id)) {
      problems.push({
        code: 'duplicate_id',
        stepId: step.id,
        message: `step id ${step.id} is used twice${done.has(step.id) ? ' (a step of that id already ran)' : ''}`,
      });
    } else position.set(step.id, i);
  });

  // The dependency graph: unknown ids are reported, forward ones are kept for the cycle check.
  const edges = new Map<string, string[]>();
  const forward: [string, string][] = [];
  for (const [i, step] of steps.entries()) {
    const deps: string[] = [];
    for (const dep of step.dependsOn) {
      if (done.has(dep)) continue; // already ran: satisfied
      const at = position.get(dep);
      if (at === undefined) {
        problems.push({
          code: 'unknown_dependency',
          stepId: step.id,
          message: `step ${step.id} depends on ${dep}, which the plan does not have`,
        });
        continue;
      }
      deps.push(dep);
      if (at >= i && dep !== step.id) forward.push([step.id, dep]);
    }
    if (position.get(step.id) === i) edges.set(step.id, deps);
  }
  const ids = [...position.keys()];
  const sorted = topologicalOrder(ids, edges);
  const inCycle = new Set('cycle' in sorted ? sorted.cycle : []);
  if ('cycle' in sorted) {
    const loop = [...sorted.cycle, sorted.cycle[0]].join(' → ');
    problems.push({
      code: 'cycle',
      steps: sorted.cycle,
      message: `the steps ${sorted.cycle.join(', ')} depend on each other in a cycle (${loop})`,
    });
  }
  for (const [id, dep] of forward) {
    if (inCycle.has(id) && inCycle.has(dep)) continue;
    problems.push({
      code: 'dependency_order',
      stepId: id,
      message: `step ${id} depends on ${dep}, declared after it; a step may depend only on steps before it`,
    });
  }
  const ancestors = ancestorsOf(edges);

  for (const step of steps) {
    const tool = ctx.registry.get(step.action);
    if (tool === undefined) {
      problems.push({
        code: 'unknown_action',
        stepId: step.id,
        message: `step ${step.id}: no action named ${JSON.stringify(step.action)}; available: ${[...ctx.registry.keys()].join(', ') || 'none'}`,
      });
      continue;
    }
    checkRefs(step, steps, ancestors.get(step.id), ctx, problems);
    checkInput(step, tool, problems);
    for (const validator of ctx.validators) {
      for (const found of validator.check(step, { tool, plan })) problems.push({ ...found, stepId: step.id });
    }
  }

  if ('order' in sorted) {
    const longest = criticalPathMs(sorted.order, edges, steps, ctx);
    if (longest > ctx.timeLeftMs) {
      problems.push({
        code: 'over_deadline',
        message: `the plan's longest chain of steps may take ${longest} ms at its tools' timeouts; the run has ${Math.max(0, Math.floor(ctx.timeLeftMs))} ms left`,
      });
    }
  }
  return { ok: problems.length === 0, problems, order: 'order' in sorted ? sorted.order : undefined };
}

function ancestorsOf(edges: ReadonlyMap<string, readonly string[]>): Map<string, Set<string>> {
  const memo = new Map<string, Set<string>>();
  const visit = (id: string, trail: Set<string>): Set<string> => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const all = new Set<string>();
    if (trail.has(id)) return all; // a cycle: reported elsewhere
    trail.add(id);
    for (const dep of edges.get(id) ?? []) {
      all.add(dep);
      for (const up of visit(dep, trail)) all.add(up);
    }
    trail.delete(id);
    memo.set(id, all);
    return all;
  };
  for (const id of edges.keys()) visit(id, new Set());
  return memo;
}

function checkRefs(
  step: PlanStep,
  steps: readonly PlanStep[],
  ancestors: ReadonlySet<string> | undefined,
  ctx: PlanValidationContext,
  problems: PlanProblem[],
): void {
  for (const { at, ref, text } of findRefs(step.input)) {
    const field = at;
    if (ref === undefined) {
      problems.push({
        code: 'dangling_ref',
        stepId: step.id,
        field,
        message: `step ${step.id} ${field}: ${JSON.stringify(text)} is not a reference (write "<step id>.output.<field>" or "task.<action>.output.<field>")`,
      });
      continue;
    }
    if (ref.kind === 'task') {
      const entry = ctx.taskState.latest(ref.action);
      if (entry === undefined || valueAt(entry.output, ref.path) === undefined) {
        problems.push({
          code: 'dangling_ref',
          stepId: step.id,
          field,
          message: `step ${step.id} ${field}: ${text} points at nothing in the task state`,
        });
      }
      continue;
    }
    const ran = ctx.taskState.step(ref.stepId);
    if (ran !== undefined) {
      if (valueAt(ran.output, ref.path) === undefined) {
        problems.push({
          code: 'dangling_ref',
          stepId: step.id,
          field,
          message: `step ${step.id} ${field}: step ${ref.stepId} ran, but its output has no ${ref.path.join('.')}`,
        });
      }
      continue;
    }
    const target = steps.find((s) => s.id === ref.stepId);
    if (target === undefined) {
      problems.push({
        code: 'dangling_ref',
        stepId: step.id,
        field,
        message: `step ${step.id} ${field}: ${text} refers to step ${ref.stepId}, which the plan does not have`,
      });
      continue;
    }
    if (ancestors?.has(ref.stepId) !== true) {
      problems.push({
        code: 'ref_not_dependency',
        stepId: step.id,
        field,
        message: `step ${step.id} ${field}: ${text} refers to step ${ref.stepId}, which step ${step.id} does not depend on`,
      });
      continue;
    }
    const missing = missingOutputField(ctx.registry.get(target.action), ref.path);
    if (missing !== undefined) {
      problems.push({
        code: 'dangling_ref',
        stepId: step.id,
        field,
        message: `step ${step.id} ${field}: ${text}: the output of ${target.action} has no field ${missing}`,
      });
    }
  }
}

/** The first path segment an object output schema does not declare (only plain objects are judged). */
function missingOutputField(tool: AnyTool | undefined, path: readonly string[]): string | undefined {
  const first = path[0];
  if (tool === undefined || first === undefined || !isZodObject(tool.output)) return undefined;
  return Object.hasOwn(tool.output.shape, first) ? undefined : first;
}

/**
 * The input against the tool's schema, before anything runs. A referenced value is not known
 * yet: issues at or under a reference are not judged here (the resolved input is checked
 * again when the step runs). A required value that is absent can be asked for.
 */
function checkInput(step: PlanStep, tool: AnyTool, problems: PlanProblem[]): void {
  // Issue paths are dotted (`recipients.0`); a reference's place is written `recipients[0]`.
  const refs = findRefs(step.input).map((r) => r.at.replace(/\[(\d+)\]/g, '.$1').replace(/^\./, ''));
  const checked = checkAgainst(tool.input, step.input, toolSpec(tool).inputSchema);
  if (checked.ok) return;
  for (const issue of checked.issues) {
    if (refs.some((at) => issue.path === at || issue.path.startsWith(`${at}.`))) continue;
    const path = issue.path === '(root)' ? [] : issue.path.split('.');
    if (
      path.length > 0 &&
      valueAt(step.input, path) === undefined &&
      !issue.message.startsWith('unknown key')
    ) {
      problems.push({
        code: 'missing_value',
        stepId: step.id,
        field: issue.path,
        message: `step ${step.id}: ${step.action} needs ${issue.path}, and the plan does not give it`,
        ask: { question: `What ${humanField(issue.path)} should I use for ${step.action}?`, candidates: [] },
      });
      continue;
    }
    problems.push({
      code: 'invalid_input',
      stepId: step.id,
      field: issue.path,
      message: `step ${step.id}: ${step.action} input ${issue.path}: ${issue.message}`,
    });
  }
}

function humanField(path: string): string {
  return path.replace(/[_.]/g, ' ');
}

function criticalPathMs(
  order: readonly string[],
  edges: ReadonlyMap<string, readonly string[]>,
  steps: readonly PlanStep[],
  ctx: PlanValidationContext,
): number {
  const finish = new Map<string, number>();
  for (const id of order) {
    const step = steps.find((s) => s.id === id);
    const own = ctx.registry.get(step?.action ?? '')?.timeoutMs ?? ctx.defaultTimeoutMs;
    const start = Math.max(0, ...(edges.get(id) ?? []).map((dep) => finish.get(dep) ?? 0));
    finish.set(id, start + own);
  }
  return Math.max(0, ...finish.values());
}
