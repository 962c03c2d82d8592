// Proves the limit tests can fail: removes each limit from the source in turn, runs the
// core test suite, and expects a failure. Restores the file afterwards — also on Ctrl-C or
// a kill by CI's timeout. Usage: node scripts/mutation-check.mjs   (about a minute)
import { runMutants } from './mutation-runner.mjs';

const src = 'packages/reins/src/';
const loop = `${src}loop/`;
const parser = `${src}decision/parse-structured.ts`;
const MUTANTS = [
  [
    'max steps removed',
    `${loop}run-loop.ts`,
    'step >= limits.maxSteps || this.#turn.forcedFinal',
    'this.#turn.forcedFinal',
  ],
  [
    'last step still offers tools',
    `${loop}run-loop.ts`,
    'const tools = finalStep ? [] : this.#ctx.specs;',
    'const tools = this.#ctx.specs;',
  ],
  [
    'repeat guard removed',
    `${loop}resolve-turn.ts`,
    'const firstStep = state.actions.get(key);',
    'const firstStep = undefined as number | undefined;',
  ],
  [
    'repeat does not force the final step',
    `${loop}run-loop.ts`,
    'this.#turn.forcedFinal = true;',
    'this.#turn.forcedFinal = false;',
  ],
  [
    'deadline removed',
    `${loop}run-agent.ts`,
    'const onDeadline = (): void => abort.abort(RUN_DEADLINE);',
    'const onDeadline = (): void => undefined;',
  ],
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
    `${loop}run-agent.ts`,
    "else external?.addEventListener('abort', cancel, { once: true });",
    '',
  ],
  [
    'input not validated',
    `${loop}execute-action.ts`,
    '? checkAgainst(tool.input, given, { refuseKeysOutside: inputSchema })',
    '? { ok: true as const, value: given }',
  ],
  [
    'parameter sandbox off',
    `${loop}execute-action.ts`,
    'const given = sandboxInput(',
    'const given = request.input; void (',
  ],
  [
    'stray keys allowed',
    `${loop}validate-io.ts`,
    'if (options.refuseKeysOutside !== undefined) {',
    'if (false) {',
  ],
  [
    'output schema not checked',
    `${loop}execute-action.ts`,
    'const output = checkAgainst(tool.output, invoked.output, {});',
    'const output = { ok: true as const, value: invoked.output };',
  ],
  [
    'business check skipped',
    `${loop}execute-action.ts`,
    'if (tool.check === undefined) return true;',
    'return true;',
  ],
  ['no sanitizer', `${loop}execute-action.ts`, 'masked = maskPii(output.value);', 'masked = output.value;'],
  ['raw text dropped', `${loop}resolve-turn.ts`, 'text: parse.raw.trim() || EMPTY_REPLY_TEXT', "text: ''"],
  [
    'history window: everything summarized',
    `${loop}prompt.ts`,
    'const firstFull = turns.length - this.limits.historyFullSteps;',
    'const firstFull = turns.length;',
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
    `${loop}run-loop.ts`,
    'while (running.size >= limits.toolConcurrency)',
    'while (false)',
  ],
  [
    'a call that may change something does not run alone',
    `${loop}run-loop.ts`,
    "const alone = call.kind === 'run' && runsAlone(act.registry, call.tool);",
    'const alone = false;',
  ],
  ['calls per step unbounded', `${loop}resolve-turn.ts`, 'if (i >= maxCallsPerStep) {', 'if (false) {'],
  [
    'unparseable native arguments not refused',
    `${loop}resolve-turn.ts`,
    'if (call.inputError !== undefined)',
    'if (false)',
  ],
  [
    'breaker never opens',
    `${src}policies/tool-policies.ts`,
    '    if (policy.breaker !== false) {\n      this.#counter',
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
  ['fallback never used', `${loop}execute-action.ts`, '    tool.fallback === undefined ||', '    true ||'],
  [
    'another tenant’s row distinguishable from none',
    `${loop}execute-action.ts`,
    "if (layer === 'status' && (code === 'NOT_FOUND' || code === 'PERMISSION_DENIED')) {",
    'if (false) {',
  ],
  [
    'large results shown whole',
    `${loop}execute-action.ts`,
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
    `${loop}approvals.ts`,
    '        this.#pending = undefined;\n        onSettled();',
    '        onSettled();',
  ],
  [
    'timeouts need not nest',
    `${src}timeout-hierarchy.ts`,
    'if (modelTimeoutMs < toolBudgetMs) {',
    'if (false) {',
  ],
];

runMutants(MUTANTS, ['packages/reins/test']);
