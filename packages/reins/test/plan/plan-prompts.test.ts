import { describe, expect, it } from 'vitest';
import {
  keptPrompts,
  runPlanAgent,
  type ChatMessage,
  type ClarifyEvent,
  type ModelRequest,
  type PlanStepEvent,
  type PromptMessage,
  type ReasonStep,
  type RunEvent,
} from 'reins';
import { scriptModel } from 'reins/testing';
import { contactTool as contact, countingAdd, final } from '../helpers.js';
import { claimsTools, hospitalCodes, plan, step } from './plan-tools.js';

/** A message as the model got it, in the kept prompt's shape (without the token estimate). */
const asSent = (message: ChatMessage) => ({ role: message.role, content: message.content });
const sentAt = (calls: readonly ModelRequest[]) => calls.map((c) => c.messages.map(asSent));
const keptAs = (message: PromptMessage) => ({ role: message.role, content: message.content });
const json = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const modelSteps = (events: readonly RunEvent[]) =>
  events.filter(
    (e): e is ReasonStep | PlanStepEvent => e.type === 'step' && (e.phase === 'reason' || e.phase === 'plan'),
  );

describe('the prompt debugger in plan-and-execute runs: every model step keeps the exact messages it was sent', () => {
  it('keeps the planner’s and the responder’s prompts (a plan of two tasks), rebuilt from events, record and their JSON', async () => {
    const { tool: add } = countingAdd();
    const model = scriptModel([
      plan([step('s1', 'contact', { who: 'mum' }), step('s2', 'add', { a: 1, b: 2 })]),
      final('Mum’s card is there; 1 + 2 = 3'),
    ]);
    const run = runPlanAgent({ query: 'Find mum’s card and add 1 and 2', model, tools: [contact, add] });
    const record = await run.result;
    expect(record.status).toBe('success');
    const sent = sentAt(model.calls);
    expect(sent).toHaveLength(2);

    for (const source of [run.events, json(run.events), record, json(record)]) {
      const kept = keptPrompts(source);
      expect(kept.map((k) => k.index)).toEqual([1, 2]);
      expect(kept.map((k) => k.messages.map(keptAs))).toEqual(sent);
    }
    // The planner's prompt is on its plan version, the responder's on its reason step.
    const [planned, answered] = modelSteps(json(run.events));
    expect(planned).toMatchObject({ phase: 'plan', index: 1 });
    expect(planned?.prompt?.count).toBe(sent[0]?.length);
    expect(answered).toMatchObject({ phase: 'reason', index: 2 });
    expect(answered?.prompt?.count).toBe(sent[1]?.length);
    // Each kept whole: the responder's messages are built anew, nothing refers to the planner's.
    expect(answered?.prompt?.parts.every((p) => 'role' in p)).toBe(true);
    expect(json(record).steps.find((s) => s.phase === 'plan')?.detail['prompt']).toEqual(planned?.prompt);

    // The two tasks' results reached the responder as the model saw them (masked, like observations).
    const responder =
      keptPrompts(run.events)[1]
        ?.messages.map((m) => m.content)
        .join('\n') ?? '';
    expect(responder).toContain('*******5678');
    expect(responder).toContain('z***@example.com');
    expect(responder).toContain('"sum":3');
    const text = JSON.stringify(run.events);
    expect(text).not.toContain('13812345678');
    expect(text).not.toContain('zhang.san@example.com');
  });

  it('masks personal data in the kept prompt that reached the model as typed (the query)', async () => {
    const model = scriptModel([plan([step('s1', 'contact', { who: 'mum' })]), final('done')]);
    const run = runPlanAgent({ query: 'Call me on 13987654321 about mum', model, tools: [contact] });
    await run.result;
    const kept = keptPrompts(json(run.events));
    for (const [i, call] of model.calls.entries()) {
      const typed = call.messages.map((m) => m.content).join('\n');
      expect(typed).toContain('13987654321');
      const keptText = kept[i]?.messages.map((m) => m.content).join('\n');
      expect(keptText).toBe(typed.replaceAll('13987654321', '*******4321'));
    }
    expect(JSON.stringify(modelSteps(run.events).map((e) => e.prompt))).not.toContain('13987654321');
  });

  it('keeps none when turned off', async () => {
    const { tool: add } = countingAdd();
    const model = scriptModel([plan([step('s1', 'add', { a: 1, b: 2 })]), final('3')]);
    const run = runPlanAgent({ query: 'q', model, tools: [add], recordPrompts: false });
    const record = await run.result;
    expect(modelSteps(run.events).map((e) => e.prompt)).toEqual([undefined, undefined]);
    expect(JSON.stringify(record)).not.toContain('"prompt"');
    expect(JSON.stringify(run.events)).not.toContain('"prompt"');
    expect(keptPrompts(record)).toEqual([]);
  });

  it('a re-plan keeps the second planner call too; the planner asking keeps its reason step’s prompt', async () => {
    const { tools } = claimsTools();
    const reasoning = {
      reasoning: {
        current_goal: 'find the policy',
        known_facts: [],
        missing_info: ['the insured person'],
        next_action: 'ask_clarification',
      },
    };
    const model = scriptModel([
      JSON.stringify(reasoning),
      plan([step('s1', 'no_such_action', {})]),
      plan([step('s1', 'find_policy', { insured: '张三' })]),
      final('P2024001'),
    ]);
    const run = runPlanAgent({ query: 'look up the policy', model, tools, limits: { maxSteps: 4 } });
    await run.result;
    const question = run.events.find((e): e is ClarifyEvent => e.type === 'clarify');
    run.answer({ questionId: question?.questionId ?? '', value: '张三' });
    const record = await run.result;
    expect(record.status).toBe('success');
    expect(modelSteps(run.events).map((e) => `${e.phase}:${e.index}`)).toEqual([
      'reason:1',
      'plan:2',
      'plan:3',
      'reason:4',
    ]);
    for (const source of [run.events, json(record)]) {
      const kept = keptPrompts(source);
      expect(kept.map((k) => k.index)).toEqual([1, 2, 3, 4]);
      expect(kept.map((k) => k.messages.map(keptAs))).toEqual(sentAt(model.calls));
    }
  });

  it('a run rebuilt from its stored log after a restart keeps the history’s prompts and its own', async () => {
    const replies = [
      plan([step('s1', 'query_medical_record', { patient_id: 'zhangsan', hospital_code: '协和' })]),
      final('2 stays synced'),
    ];
    const stored: RunEvent[] = [];
    const sink = async (events: readonly RunEvent[]) => {
      for (const e of events) if (e.seq >= stored.length) stored.push(json(e)); // as a store keeps it
    };
    const options = {
      query: 'sync the stay at 协和',
      validators: [hospitalCodes],
      runId: 'p1',
      durable: { sink },
    };
    const first = scriptModel(replies);
    const run = runPlanAgent({ ...options, model: first, tools: claimsTools().tools });
    expect((await run.result).status).toBe('awaiting_input');
    await run.persisted();
    const model = scriptModel(replies.slice(1));
    const rebuilt = runPlanAgent({ ...options, model, tools: claimsTools().tools, history: json(stored) });
    await rebuilt.result;
    rebuilt.answer({ questionId: rebuilt.pendingQuestion?.questionId ?? '', value: 'WHXH001' });
    expect((await rebuilt.result).status).toBe('success');
    for (const source of [rebuilt.events, json(rebuilt.events)]) {
      const kept = keptPrompts(source);
      expect(kept.map((k) => k.index)).toEqual([1, 2]);
      expect(kept.map((k) => k.messages.map(keptAs))).toEqual(sentAt([...first.calls, ...model.calls]));
    }
  });

  it('passes over a plan version made by code (the user’s answer patched into the frozen plan)', async () => {
    const { tools } = claimsTools();
    const model = scriptModel([
      plan([step('s1', 'query_medical_record', { patient_id: 'zhangsan', hospital_code: '协和' })]),
      final('2 stays synced'),
    ]);
    const run = runPlanAgent({ query: 'sync the stay at 协和', model, tools, validators: [hospitalCodes] });
    await run.result;
    const question = run.events.find((e): e is ClarifyEvent => e.type === 'clarify');
    run.answer({ questionId: question?.questionId ?? '', value: 'WHXH001' });
    const record = await run.result;
    expect(record.status).toBe('success');
    const versions = modelSteps(run.events).filter((e) => e.phase === 'plan');
    expect(versions.map((v) => [v.reason, v.model === undefined, v.prompt === undefined])).toEqual([
      ['initial', false, false],
      ['clarified', true, true],
    ]);
    for (const source of [run.events, record, json(record)]) {
      const kept = keptPrompts(source);
      expect(kept.map((k) => k.index)).toEqual([1, 2]);
      expect(kept.map((k) => k.messages.map(keptAs))).toEqual(sentAt(model.calls));
    }
  });
});
