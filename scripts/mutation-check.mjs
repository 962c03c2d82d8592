// Proves the limit tests can fail: removes each limit from the source in turn, runs the
// core test suite, and expects a failure. Restores the file afterwards — also on Ctrl-C or
// a kill by CI's timeout. Usage: node scripts/mutation-check.mjs   (about a minute)
import { runMutants } from './mutation-runner.mjs';

const src = 'packages/reins/src/';
const loop = `${src}loop/`;
const parser = `${src}decision/parse-structured.ts`;
const plan = `${src}plan/`;
const planTests = ['packages/reins/test/plan', 'packages/reins/test/react-clarify.test.ts'];
// Plan-and-execute guards; run against the plan tests only (they are what covers them).
export const PLAN_MUTANTS = [
  [
    'plan cycle not detected',
    `${plan}validate-plan.ts`,
    "if ('cycle' in sorted) {",
    'if (false) {',
    planTests,
  ],
  [
    'dangling reference to a missing step accepted',
    `${plan}validate-plan.ts`,
    'if (target === undefined) {',
    'if (false) {',
    planTests,
  ],
  [
    'question cap removed',
    `${plan}ask-user.ts`,
    'if (clarifications.asked >= max) {',
    'if (false) {',
    planTests,
  ],
  [
    'step failing INVALID_PARAMETER re-planned without bound',
    `${plan}plan-router.ts`,
    'if (state.replans >= ctx.maxReplans || !roomForPlanner(ctx)) return',
    'if (!roomForPlanner(ctx)) return',
    planTests,
  ],
  [
    'invalid plan re-planned without bound',
    `${plan}plan-router.ts`,
    'if (state.replans < ctx.maxReplans && roomForPlanner(ctx)) {',
    'if (roomForPlanner(ctx)) {',
    planTests,
  ],
  [
    'plan step starts before its dependencies',
    `${plan}execute-plan.ts`,
    'if (!step.dependsOn.every(satisfied)) continue;',
    '',
    planTests,
  ],
  [
    'plan steps unbounded in parallel',
    `${plan}execute-plan.ts`,
    'if (running.size >= env.concurrency) break;',
    '',
    planTests,
  ],
];

const MUTANTS = [
  [
    'max steps removed',
    `${loop}run-loop.ts`,
    'step >= limits.maxSteps || this.forcedFinal',
    'this.forcedFinal',
  ],
  [
    'last step still offers tools',
    `${loop}run-loop.ts`,
    'const tools = finalStep ? [] : this.ctx.specs;',
    'const tools = this.ctx.specs;',
  ],
  [
    'repeat guard removed',
    `${loop}resolve-turn.ts`,
    'const firstStep = state.actions.get(tool, input, hash);',
    'const firstStep = undefined as number | undefined;',
  ],
  [
    'repeat guard takes a key whose hash matches for the same action',
    `${loop}action-keys.ts`,
    'return sameAction(tool, input, event) ? event.index : undefined;',
    'return event.index;',
    ['packages/reins/test/action-keys.test.ts'],
  ],
  [
    'repeat does not force the final step',
    `${loop}run-loop.ts`,
    'this.forcedFinal = true;',
    'this.forcedFinal = false;',
  ],
  ['deadline removed', `${loop}run-abort.ts`, 'this.abort(RUN_DEADLINE);', ''],
  [
    'model call not raced against the signal',
    `${loop}run-loop.ts`,
    'if (this.#modelStep !== 0) this.#stopDuringModelCall();\n',
    '\n',
  ],
  [
    'tool timeout removed',
    `${loop}invoke-tool.ts`,
    '() => act.stop(TOOL_TIMEOUT), timeoutMs',
    '() => undefined, timeoutMs',
  ],
  [
    'external signal ignored',
    `${loop}run-abort.ts`,
    "external.addEventListener('abort', cancel, { once: true });",
    '',
  ],
  [
    'input not validated',
    `${loop}execute-action.ts`,
    'const parsed = checkAgainst(tool.input, given);',
    'const parsed: Checked = { ok: true as const, value: given };',
  ],
  [
    'parameter sandbox off',
    `${loop}execute-action.ts`,
    'given = sandboxWithStrayKeys(',
    'given = request.input; void sandboxWithStrayKeys(',
  ],
  [
    'stray keys allowed',
    `${loop}execute-action.ts`,
    'return !parsed.ok || strayFound === undefined ? parsed : { ok: false, issues: strayFound };',
    'return parsed;',
  ],
  [
    'tool shares the logged input object',
    `${loop}validate-io.ts`,
    'if (!Array.isArray(value) && !isPlainObject(value)) return value;',
    'return value;',
    ['packages/reins/test/tool-input-copy.test.ts'],
  ],
  [
    'output schema not checked',
    `${loop}check-result.ts`,
    'const output = checkAgainst(tool.output, invoked.output);',
    'const output = { ok: true as const, value: invoked.output };',
  ],
  [
    'business check skipped',
    `${loop}check-result.ts`,
    'if (tool.check === undefined) return true;',
    'return true;',
  ],
  ['no sanitizer', `${loop}check-result.ts`, 'masked = maskPii(output.value);', 'masked = output.value;'],
  ['raw text dropped', `${loop}resolve-turn.ts`, 'text: parse.raw.trim() || EMPTY_REPLY_TEXT', "text: ''"],
  [
    'history window: everything summarized',
    `${loop}prompt.ts`,
    'const firstFull = count - this.limits.historyFullSteps;',
    'const firstFull = count;',
  ],
  [
    'observation cap removed',
    `${loop}prompt.ts`,
    'return truncate(text, this.limits.observationChars);',
    'return text;',
  ],
  ['parser size cap removed', parser, 'if (raw.length > limits.maxChars) {', 'if (false) {'],
  [
    'parser depth cap before repair removed',
    parser,
    'if (nestingDepth(raw) > limits.maxDepth)',
    'if (false)',
  ],
  [
    'parser depth cap on the value removed',
    parser,
    'return valueDepth(value, limits.maxDepth) > limits.maxDepth;',
    'return false;',
  ],
  ['repair size cap removed', parser, 'if (candidate.length > limits.maxRepairChars) {', 'if (false) {'],
  [
    'repair may change the shape',
    parser,
    'if (isPlainObject(value)) return { value, via };',
    'return { value: value as Record<string, unknown>, via };',
  ],
  [
    'tool concurrency unbounded',
    `${loop}schedule-calls.ts`,
    'while (running.size >= concurrency)',
    'while (false)',
  ],
  [
    'a call that may change something does not run alone',
    `${loop}schedule-calls.ts`,
    'const byItself = alone(call);',
    'const byItself = false;',
  ],
  ['calls per step unbounded', `${loop}resolve-turn.ts`, 'if (i >= maxCallsPerStep) {', 'if (false) {'],
  [
    'replay runs a completed act again',
    `${loop}run-replay.ts`,
    "if (observation !== undefined) return { kind: 'observed', observation };",
    '',
  ],
  [
    'replay repeats an interrupted act that may change something',
    `${loop}run-replay.ts`,
    "return tool.readOnly || tool.idempotent === true ? undefined : { kind: 'unknown' };",
    'return undefined;',
  ],
  [
    'events shown before they are stored',
    `${loop}log-writer.ts`,
    'await this.#sink(batch);',
    'void this.#sink(batch);',
  ],
  [
    'a settled pause is asked again on replay',
    `${loop}pending-wait.ts`,
    'const settled = this.recorded?.(request) ?? (at >= request.expiresAt ? expired(at) : undefined);',
    'const settled = at >= request.expiresAt ? expired(at) : undefined;',
  ],
  [
    'a wait opened past its expiry waits for a timer',
    `${loop}pending-wait.ts`,
    'const settled = this.recorded?.(request) ?? (at >= request.expiresAt ? expired(at) : undefined);',
    'const settled = this.recorded?.(request);',
  ],
  [
    'unparseable native arguments not refused',
    `${loop}resolve-turn.ts`,
    'if (call.inputError !== undefined)',
    'if (false)',
  ],
  [
    'breaker never opens',
    `${src}policies/tool-policies.ts`,
    '    if (policy.breaker !== false && this.#shared === undefined) {\n      this.#counter',
    '    if (false) {\n      this.#counter',
  ],
  [
    'tools that change something are retried',
    `${src}policies/tool-policies.ts`,
    'retries: tool.readOnly ? (',
    'retries: true ? (',
  ],
  [
    'retries ignore the time budget',
    `${loop}invoke-tool.ts`,
    'if (env.deps.now() + backoff.duration >= endsAt) break;',
    '',
  ],
  [
    'an abandoned call frees its place in the concurrency cap',
    `${loop}invoke-tool.ts`,
    '(act.stopped === undefined ? undefined : running);',
    'undefined;',
  ],
  ['fallback never used', `${loop}execute-action.ts`, '    tool.fallback === undefined ||', '    true ||'],
  [
    'another tenant’s row distinguishable from none',
    `${loop}observe.ts`,
    "if (layer === 'status' && (code === 'NOT_FOUND' || code === 'PERMISSION_DENIED')) {",
    'if (false) {',
  ],
  [
    'large results shown whole',
    `${loop}check-result.ts`,
    'if (json !== undefined && json.length * 3 > limit && utf8Bytes(json) > limit) {',
    'if (false) {',
  ],
  [
    'no approval for calls that change something',
    `${loop}execute-action.ts`,
    'if (gate !== undefined && needsApproval(tool)) {',
    'if (false) {',
  ],
  [
    'approval not bound to the run’s user',
    `${loop}approvals.ts`,
    'if (decision.by.id !== this.owner.id) {',
    'if (false) {',
  ],
  [
    'approval not bound to the input',
    `${loop}approvals.ts`,
    'if (decision.inputHash !== pending.inputHash) {',
    'if (false) {',
  ],
  [
    'approval usable twice',
    `${loop}pending-wait.ts`,
    '        this.#pending = undefined;\n        if ((outcome',
    '        if ((outcome',
  ],
  [
    'a late answer accepted',
    `${loop}pending-wait.ts`,
    'if (at >= pending.request.expiresAt) {',
    'if (false) {',
  ],
  [
    'timeouts need not nest',
    `${src}timeout-hierarchy.ts`,
    'if (modelTimeoutMs < toolBudgetMs) {',
    'if (false) {',
  ],
  ...PLAN_MUTANTS,
  [
    'structured answer not checked against its schema',
    `${src}answer-format.ts`,
    "if (!parsed.success) return { text: reply.text, format: 'raw' };",
    '',
  ],
  [
    'structured answer not stamped by code',
    `${src}answer-format.ts`,
    'format.finalize === undefined',
    'true',
  ],
  // The server's limits (the memory store; the Redis store runs the same contract and HTTP tests).
  [
    'quota reservation not checked',
    'packages/server/src/limit-store.ts',
    'if (!force && q.used + held + hold.amount > limit) return { ok: false, used: q.used, held };',
    '',
    ['packages/server/test/limit-store.test.ts', 'packages/server/test/limits.test.ts'],
  ],
  [
    'running-run cap not enforced',
    'packages/server/src/limit-store.ts',
    'if (!set.has(slotId) && !force && set.size >= max) return { ok: false, count: set.size };',
    '',
    ['packages/server/test/limit-store.test.ts', 'packages/server/test/limits.test.ts'],
  ],
  // The shared mode (real Redis, in-process instances).
  [
    'an event after a gap on the bus is not read from the store',
    'packages/server/src/shared/remote-run.ts',
    'void this.#refetch();',
    '',
    ['packages/server/test/shared-mode.test.ts'],
  ],
  [
    'a quiet followed run is never re-read from the store',
    'packages/server/src/shared/remote-run.ts',
    'if (!this.following || now - Math.max(this.#lastHeard, this.#lastChecked) < quietMs)',
    'if (true)',
    ['packages/server/test/shared-mode.test.ts'],
  ],
  [
    'what a handed-back run does in memory is published',
    'packages/server/src/shared/run-worker.ts',
    'if (entry.released) return; // let go of',
    '// mutant:',
    ['packages/server/test/shared-mode.test.ts'],
  ],
  [
    'input cleaning removed',
    `${src}sanitize/user-input.ts`,
    'if (!ANY_MARKER.test(text)) return { text, markers: CLEAN };',
    'return { text, markers: CLEAN };',
    ['packages/reins/test/user-input.test.ts', 'packages/reins/test/run-agent-auto-input.test.ts'],
  ],
  [
    'a rebuilt auto run chooses again',
    `${loop}run-limits.ts`,
    "if (started?.type === 'start') {",
    'if (false) {',
    ['packages/reins/test/run-agent-auto-input.test.ts'],
  ],
  [
    'a cancel sent while no worker holds the run is lost',
    'packages/server/src/shared/run-worker.ts',
    'if (await this.#bus.isCancelled(runId)) entry.cancel();',
    '',
    ['packages/server/test/shared-mode.test.ts'],
  ],
  [
    'a tool definition changed without a version bump is not flagged',
    `${src}drift/compare.ts`,
    "const unversioned = kind === 'changed' && !fields.includes('version');",
    'const unversioned = false;',
    ['packages/reins/test/tool-drift.test.ts'],
  ],
  [
    'an unreachable tool source reported as its tools removed',
    `${src}drift/compare.ts`,
    'if (now.has(name) || skipped.has(was.source)) continue;',
    'if (now.has(name)) continue;',
    ['packages/reins/test/tool-drift.test.ts'],
  ],
];

// MUTANTS=plan runs the plan-and-execute mutants alone.
runMutants(process.env.MUTANTS === 'plan' ? PLAN_MUTANTS : MUTANTS, ['packages/reins/test']);
