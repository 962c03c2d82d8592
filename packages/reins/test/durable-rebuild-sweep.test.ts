// A cut-point sweep of durable rebuilds (written in a review; it found nothing to fix), beyond the
// other tests (native fan-out, fan-out with an approval, declined approval, flaky
// read-only tool with retries, clarify, repeated action, tool progress events in the history, max
// steps, plan with approval / replan / question): for every prefix of the stored log, the rebuilt
// run keeps the history unchanged, seq gapless, one start, ends with done, never re-executes an
// observed act or an unsafe started one, never asks the model for a recorded step, and (when no
// OUTCOME_UNKNOWN) ends exactly like the original (status, answer, done.steps, usage, event kinds).
// Contracts: docs/durable-state.md "found in the log / on resume" table; run-replay.ts:15-31.
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import {
  defineTool,
  runAgent,
  runPlanAgent,
  ToolError,
  type AgentRun,
  type AnyTool,
  type Model,
  type ModelRequest,
  type ModelResult,
  type RunEvent,
} from 'reins';

type Reply = string | { text?: string; toolCalls: { id: string; name: string; arguments: string }[] };

function stepModel(replies: readonly Reply[]): Model & { steps: number[] } {
  const steps: number[] = [];
  return {
    name: 'step-model',
    steps,
    async call(request: ModelRequest): Promise<ModelResult> {
      steps.push(request.step);
      await new Promise((r) => setTimeout(r, 1));
      const r = replies[request.step - 1] ?? '{"thought":"x","final":"out of script"}';
      if (typeof r === 'string') return { ok: true, text: r, usage: { inputTokens: 10, outputTokens: 5 } };
      return {
        ok: true,
        text: r.text ?? '',
        toolCalls: r.toolCalls,
        usage: { inputTokens: 10, outputTokens: 5 },
      };
    },
  };
}

function tools(opts: { approve?: boolean; progress?: boolean; flaky?: boolean } = {}) {
  const executions: string[] = [];
  let flakyCalls = 0;
  const lookup = defineTool({
    name: 'lookup',
    description: 'Looks up.',
    input: z.object({ q: z.string() }),
    output: z.object({ answer: z.string() }),
    readOnly: true,
    run: async ({ q }, ctx) => {
      executions.push(`lookup:${ctx.actId}`);
      if (opts.flaky && q === 'bad') throw new ToolError('INVALID_PARAMETER', 'bad q');
      if (opts.flaky && flakyCalls++ % 2 === 0) throw new ToolError('SERVICE_UNAVAILABLE', 'blip');
      if (opts.progress) ctx.progress?.({ progress: 1, total: 2, message: 'half' });
      await new Promise((r) => setTimeout(r, 2));
      return { answer: `about ${q}` };
    },
  });
  const order = defineTool({
    name: 'place_order',
    description: 'Orders.',
    input: z.object({ item: z.string() }),
    output: z.object({ orderId: z.string() }),
    readOnly: false,
    needsApproval: opts.approve === true,
    run: async ({ item }, ctx) => {
      executions.push(`place_order:${ctx.actId}`);
      await new Promise((r) => setTimeout(r, 2));
      return { orderId: `o-${item}` };
    },
  });
  return { tools: [lookup, order] as AnyTool[], executions };
}

const act = (action: string, input: object) => JSON.stringify({ thought: 't', action, input });
const final = (text: string) => JSON.stringify({ thought: 'd', final: text });

async function drive(run: AgentRun, decline = false): Promise<void> {
  for (let i = 0; i < 20; i++) {
    const record = await run.result;
    if (record.status === 'awaiting_approval' && run.pendingApproval) {
      const p = run.pendingApproval;
      run.approve({ by: { id: 'u' }, actId: p.actId, inputHash: p.inputHash, approve: !decline });
      continue;
    }
    if (record.status === 'awaiting_input' && run.pendingQuestion) {
      run.answer({ questionId: run.pendingQuestion.questionId, value: 'Beijing' });
      continue;
    }
    return;
  }
}

function sink() {
  const stored: RunEvent[] = [];
  return {
    stored,
    sink: async (events: readonly RunEvent[]) => {
      for (const e of events) {
        if (e.seq < stored.length) continue;
        if (e.seq !== stored.length) throw new RangeError(`gap: ${e.seq} after ${stored.length - 1}`);
        stored.push(structuredClone(e));
      }
    },
  };
}

interface Scenario {
  name: string;
  script: Reply[];
  approve?: boolean;
  progress?: boolean;
  clarify?: boolean;
  maxSteps?: number;
  decline?: boolean;
  plan?: boolean;
  flaky?: boolean;
}

const plan = (steps: unknown[]) => JSON.stringify({ thought: 'p', steps });
const pstep = (id: string, action: string, input: object, dependsOn: string[] = []) => ({
  id,
  action,
  input,
  dependsOn,
});
const SCENARIOS: Scenario[] = [
  {
    name: 'fan-out with an approval',
    approve: true,
    script: [
      {
        toolCalls: [
          { id: 'c1', name: 'lookup', arguments: '{"q":"a"}' },
          { id: 'c2', name: 'place_order', arguments: '{"item":"x"}' },
          { id: 'c3', name: 'lookup', arguments: '{"q":"b"}' },
        ],
      },
      final('all done'),
    ],
  },
  {
    name: 'declined approval',
    approve: true,
    decline: true,
    script: [act('place_order', { item: 'x' }), act('lookup', { q: 'b' }), final('ok')],
  },
  {
    name: 'flaky read-only tool (retries)',
    flaky: true,
    script: [act('lookup', { q: 'a' }), act('lookup', { q: 'b' }), final('ok')],
  },
  {
    name: 'plan with approval',
    plan: true,
    approve: true,
    script: [
      plan([
        pstep('s1', 'lookup', { q: 'a' }),
        pstep('s2', 'lookup', { q: 'b' }),
        pstep('s3', 'place_order', { item: 'x' }, ['s1']),
      ]),
      final('planned'),
    ],
  },
  {
    name: 'plan with replan',
    plan: true,
    flaky: true,
    script: [
      plan([pstep('s1', 'lookup', { q: 'bad' }), pstep('s2', 'place_order', { item: 'x' }, ['s1'])]),
      plan([pstep('s1', 'lookup', { q: 'good' })]),
      final('replanned'),
    ],
  },
  {
    name: 'plan with question',
    plan: true,
    clarify: true,
    script: [
      JSON.stringify({
        thought: 'p',
        reasoning: { current_goal: 'g', known_facts: [], missing_info: ['which city'], next_action: 'ask' },
        steps: [],
      }),
      plan([pstep('s1', 'lookup', { q: 'a' })]),
      final('asked'),
    ],
  },
  {
    name: 'native fan-out',
    script: [
      {
        toolCalls: [
          { id: 'c1', name: 'lookup', arguments: '{"q":"a"}' },
          { id: 'c2', name: 'lookup', arguments: '{"q":"b"}' },
          { id: 'c3', name: 'place_order', arguments: '{"item":"x"}' },
          { id: 'c4', name: 'lookup', arguments: '{"q":"c"}' },
        ],
      },
      final('all done'),
    ],
  },
  {
    name: 'approval mid-run',
    approve: true,
    script: [
      act('lookup', { q: 'a' }),
      act('place_order', { item: 'x' }),
      act('lookup', { q: 'b' }),
      final('ok'),
    ],
  },
  {
    name: 'clarify',
    clarify: true,
    script: [
      JSON.stringify({ thought: 'city?', ask: 'Which city?' }),
      act('lookup', { q: 'a' }),
      final('ok'),
    ],
  },
  {
    name: 'repeated action',
    script: [act('lookup', { q: 'a' }), act('lookup', { q: 'a' }), final('ok')],
  },
  {
    name: 'progress events',
    progress: true,
    script: [act('lookup', { q: 'a' }), act('lookup', { q: 'b' }), final('ok')],
  },
  {
    name: 'max steps',
    maxSteps: 2,
    script: [act('lookup', { q: 'a' }), act('lookup', { q: 'b' })],
  },
];

function start(s: Scenario, history?: RunEvent[]) {
  const t = tools({ approve: s.approve, progress: s.progress, flaky: s.flaky });
  const model = stepModel(s.script);
  const store = sink();
  if (history) store.stored.push(...structuredClone(history));
  const run = (s.plan ? runPlanAgent : runAgent)({
    query: 'q',
    model,
    tools: t.tools,
    principal: { id: 'u' },
    runId: 'run-x',
    durable: { sink: store.sink },
    ...(history ? { history } : {}),
    ...(s.clarify ? { clarify: {} } : {}),
    ...(s.maxSteps ? { limits: { maxSteps: s.maxSteps } } : {}),
  });
  return { run, model, store, t };
}

describe('durable rebuild from every prefix of the stored log', () => {
  for (const s of SCENARIOS) {
    it(s.name, async () => {
      const o = start(s);
      await drive(o.run, s.decline);
      const full = await o.run.result;
      await o.run.persisted();
      const log = o.store.stored;
      const problems: string[] = [];
      for (let cut = 1; cut < log.length; cut++) {
        const history = structuredClone(log.slice(0, cut));
        const r = start(s, history);
        await drive(r.run, s.decline);
        const rec = await r.run.result;
        await r.run.persisted();
        const st = r.store.stored;
        const p = (m: string) =>
          problems.push(
            `cut ${cut} (${history.at(-1)?.type}/${(history.at(-1) as { phase?: string }).phase ?? ''}): ${m}`,
          );
        if (JSON.stringify(st.slice(0, cut)) !== JSON.stringify(history)) p('history changed');
        st.forEach((e, i) => {
          if (e.seq !== i) p(`seq ${e.seq} at ${i}`);
        });
        if (st.filter((e) => e.type === 'start').length !== 1) p('starts');
        const last = st.at(-1);
        if (last?.type !== 'done') p(`last is ${last?.type}`);
        const terminal = st.findIndex((e) => e.type === 'done' && !e.status.startsWith('awaiting_'));
        if (terminal !== -1 && terminal !== st.length - 1) p('events after terminal done');
        const observedIds = new Set(
          history
            .filter((e) => e.type === 'step' && e.phase === 'observe')
            .map((e) => (e as { actId: string }).actId),
        );
        const actIdsHist = new Set(
          history
            .filter((e) => e.type === 'step' && e.phase === 'act')
            .map((e) => (e as { actId: string }).actId),
        );
        for (const ex of r.t.executions) {
          const [tool, id] = ex.split(':') as [string, string];
          if (observedIds.has(id)) p(`re-executed observed ${ex}`);
          const approvedInHist = history.some(
            (e) => e.type === 'resume' && e.actId === id && e.outcome.kind === 'approved',
          );
          if (tool === 'place_order' && actIdsHist.has(id) && (!s.approve || approvedInHist))
            p(`re-executed unsafe ${ex}`);
        }
        const ids = r.t.executions;
        if (!s.flaky && new Set(ids).size !== ids.length) p(`executed twice in rebuilt ${ids}`);
        const recorded = history.filter((e) => e.type === 'step' && e.phase === 'reason').length;
        if ((r.model.steps[0] ?? Infinity) <= recorded)
          p(`model asked for step ${r.model.steps[0]} (recorded ${recorded})`);
        const unknown = st.some(
          (e) =>
            e.type === 'step' && e.phase === 'observe' && e.observation.error?.code === 'OUTCOME_UNKNOWN',
        );
        if (!unknown) {
          if (rec.status !== full.status) p(`status ${rec.status} vs ${full.status}`);
          if (rec.final_answer !== full.final_answer) p(`answer ${rec.final_answer} vs ${full.final_answer}`);
          const d1 = log.filter((e) => e.type === 'done').at(-1) as Extract<RunEvent, { type: 'done' }>;
          const d2 = st.filter((e) => e.type === 'done').at(-1) as Extract<RunEvent, { type: 'done' }>;
          if (d1.steps !== d2.steps) p(`done.steps ${d2.steps} vs ${d1.steps}`);
          if (JSON.stringify(d1.usage) !== JSON.stringify(d2.usage))
            p(`usage ${JSON.stringify(d2.usage)} vs ${JSON.stringify(d1.usage)}`);
          const k1 = log
            .map((e) => (e.type === 'step' ? `${e.phase}` : e.type))
            .filter((k) => k !== 'progress');
          const k2 = st
            .map((e) => (e.type === 'step' ? `${e.phase}` : e.type))
            .filter((k) => k !== 'progress');
          if (k1.join() !== k2.join()) p(`kinds ${k2.join()} vs ${k1.join()}`);
        }
      }
      expect(problems).toEqual([]);
    });
  }
});
