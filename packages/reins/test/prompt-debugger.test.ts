import { describe, expect, it } from 'vitest';
import {
  estimateTokens,
  keptPrompts,
  memoryRunStore,
  runAgent,
  type ChatMessage,
  type ModelRequest,
  type PromptMessage,
  type ReasonStep,
  type RunEvent,
} from 'reins';
import { scriptModel } from 'reins/testing';
import { act, contactTool as contact, countingAdd, final } from './helpers.js';

/** A message as the model got it, in the kept prompt's shape (without the token estimate). */
function asSent(message: ChatMessage): Omit<PromptMessage, 'tokens'> {
  switch (message.role) {
    case 'tool':
      return { role: 'tool', content: message.content, toolCallId: message.toolCallId, name: message.name };
    case 'assistant':
      return message.toolCalls === undefined
        ? { role: 'assistant', content: message.content }
        : { role: 'assistant', content: message.content, toolCalls: message.toolCalls };
    default:
      return { role: message.role, content: message.content };
  }
}
const withoutTokens = ({ tokens: _tokens, ...rest }: PromptMessage) => rest;
const sentAt = (calls: readonly ModelRequest[]) => calls.map((c) => c.messages.map(asSent));
const reasons = (events: readonly RunEvent[]) =>
  events.filter((e): e is ReasonStep => e.type === 'step' && e.phase === 'reason');
const json = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('the prompt debugger: every model step keeps the exact messages it was sent', () => {
  it('keeps what a recording model received at each step, as a delta rebuilt on read (text and native calls, summaries, the last step)', async () => {
    const { tool } = countingAdd();
    const model = scriptModel([
      act('add', { a: 1, b: 2 }),
      { toolCalls: [{ id: 'c1', name: 'add', arguments: '{"a":3,"b":4}' }] },
      act('add', { a: 5, b: 6 }),
      final('21'),
    ]);
    const run = runAgent({
      query: 'Add them up',
      model,
      tools: [tool],
      limits: { maxSteps: 4, historyFullSteps: 1, summaryChars: 20 },
    });
    const record = await run.result;
    const events = run.events;
    const sent = sentAt(model.calls);
    expect(sent).toHaveLength(4);

    for (const source of [events, json(events), record, json(record)]) {
      const kept = keptPrompts(source);
      expect(kept.map((k) => k.index)).toEqual([1, 2, 3, 4]);
      expect(kept.map((k) => k.messages.map(withoutTokens))).toEqual(sent);
    }
    // The delta: step 2 refers to step 1's two messages and adds what is new.
    const second = json(reasons(events)[1]?.prompt);
    expect(second?.parts[0]).toEqual({ same: 0, count: 2 });
    expect(second?.parts).toHaveLength(3);
    expect(second?.count).toBe(sent[1]?.length);
    // The last step's system prompt differs (no tools): it is kept again; the query and step
    // 1's summarized pair are not; step 2's native turn goes as text now: kept again.
    const last = json(reasons(events)[3]?.prompt);
    expect(last?.parts[0]).toMatchObject({ role: 'system' });
    expect(last?.parts[1]).toEqual({ same: 1, count: 3 });
    expect(last?.parts.slice(2).map((p) => ('role' in p ? p.role : 'same'))).toEqual([
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
  });

  it('counts tokens per message, and per step from the model’s usage when it reports one', async () => {
    const { tool } = countingAdd();
    const model = scriptModel([
      { text: act('add', { a: 1, b: 2 }), usage: { inputTokens: 777, outputTokens: 5 } },
      { text: final('3'), usage: { inputTokens: 0, outputTokens: 0 } },
    ]);
    const run = runAgent({ query: 'q', model, tools: [tool] });
    await run.result;
    const [first, second] = keptPrompts(run.events);
    expect(first).toMatchObject({ tokens: 777, tokensFrom: 'usage' });
    const estimates = second?.messages.map((m) => m.tokens) ?? [];
    expect(estimates).toEqual(model.calls[1]?.messages.map((m) => estimateTokens(m.content)));
    expect(second).toMatchObject({ tokensFrom: 'estimate', tokens: estimates.reduce((a, b) => a + b, 0) });
  });

  it('masks personal data like observations: a phone and an e-mail in an observation and in the query', async () => {
    const model = scriptModel([act('contact', { who: 'mum' }), final('done')]);
    const run = runAgent({ query: 'Call me on 13987654321 about mum', model, tools: [contact] });
    await run.result;
    const text = JSON.stringify(run.events);
    expect(text).not.toContain('13812345678');
    expect(text).not.toContain('zhang.san@example.com');
    const kept = keptPrompts(json(run.events));
    const step2 = kept[1]?.messages.map((m) => m.content).join('\n') ?? '';
    expect(step2).toContain('*******5678'); // the observation, as the model saw it
    expect(step2).toContain('z***@example.com');
    // The query reached the model as typed; the kept prompt has it masked.
    expect(model.calls[0]?.messages[1]?.content).toContain('13987654321');
    const query = model.calls[0]?.messages[1]?.content ?? '';
    expect(kept[0]?.messages[1]?.content).toBe(query.replace('13987654321', '*******4321'));
    expect(kept[0]?.messages[1]?.content).toContain('Call me on *******4321 about mum');
  });

  it('keeps none when turned off', async () => {
    const { tool } = countingAdd();
    const model = scriptModel([act('add', { a: 1, b: 2 }), final('3')]);
    const run = runAgent({ query: 'q', model, tools: [tool], recordPrompts: false });
    const record = await run.result;
    expect(reasons(run.events).map((e) => e.prompt)).toEqual([undefined, undefined]);
    expect(JSON.stringify(record)).not.toContain('"prompt"');
    expect(keptPrompts(record)).toEqual([]);
  });

  it('survives a store: the memory run store keeps the JSON', async () => {
    const store = memoryRunStore();
    await store.create({ runId: 'r1', ownerId: 'o', agent: 'a', request: {}, createdAt: 0 });
    const { tool } = countingAdd();
    const model = scriptModel([act('add', { a: 1, b: 2 }), final('3')]);
    const run = runAgent({
      runId: 'r1',
      query: 'q',
      model,
      tools: [tool],
      durable: { sink: (events) => store.append('r1', events) },
    });
    await run.result;
    expect(await run.persisted()).toBe(true);
    const loaded = await store.load('r1');
    const kept = keptPrompts(loaded?.events ?? []);
    expect(kept.map((k) => k.messages.map(withoutTokens))).toEqual(sentAt(model.calls));
  });
});
