import { describe, expect, it } from 'vitest';
import { parseReasonedDecision, runAgent, type ClarifyEvent, type RunEvent } from 'reins';
import { scriptModel } from 'reins/testing';
import { act, countingAdd, final, shape } from './helpers.js';

const ask = (question: string): string => JSON.stringify({ thought: 'I need to know', ask: question });
const questionOf = (events: readonly RunEvent[]) =>
  events.find((e): e is ClarifyEvent => e.type === 'clarify');

describe('clarification in ReAct runs (opt-in)', () => {
  it('without the option an ask is the final message, as before', async () => {
    const run = runAgent({
      query: 'add',
      model: scriptModel([ask('Which numbers?')]),
      tools: [countingAdd().tool],
    });
    const record = await run.result;
    expect(record).toMatchObject({ status: 'success', intent: 'ask', final_answer: 'Which numbers?' });
    expect(run.answer({ questionId: 'x', value: '1' })).toMatchObject({ ok: false, code: 'NOT_FOUND' });
  });

  it('with clarify an ask pauses the run; the answer resumes it in the same log', async () => {
    const { tool, calls } = countingAdd();
    const model = scriptModel([ask('Which numbers?'), act('add', { a: 2, b: 3 }), final('5')]);
    const run = runAgent({ query: 'add', model, tools: [tool], clarify: { maxQuestions: 2 } });
    const paused = await run.result;
    expect(paused.status).toBe('awaiting_input');
    expect(shape(run.events)).toEqual(['start', 'step:reason', 'clarify', 'done']);
    const question = questionOf(run.events);
    expect(question).toMatchObject({ question: 'Which numbers?', candidates: [] });
    expect(run.answer({ questionId: question?.questionId ?? '', value: '2 and 3' })).toMatchObject({
      ok: true,
    });
    const record = await run.result;
    expect(record.status).toBe('success');
    expect(record.final_answer).toBe('5');
    expect(calls.map((c) => c.input)).toEqual([{ a: 2, b: 3 }]);
    expect(model.calls[1]?.messages.map((m) => m.content)).toContain('Answer from the user: 2 and 3');
  });

  it('structured reasoning with missing_info asks instead of guessing', async () => {
    const { tool, calls } = countingAdd();
    const reasoned = JSON.stringify({
      reasoning: {
        current_goal: 'add two numbers',
        known_facts: ['the user wants a sum'],
        missing_info: ['the second number'],
        next_action: 'call_tool',
      },
      action: 'add',
      input: { a: 2, b: 0 },
    });
    const model = scriptModel([reasoned, final('ok')]);
    const run = runAgent({
      query: 'add 2 and something',
      model,
      tools: [tool],
      decisionFormat: 'structured',
      clarify: { onTimeout: 'stop' },
    });
    await run.result;
    expect(questionOf(run.events)?.question).toContain('the second number');
    expect(calls).toEqual([]); // the guessed call was not made
    run.cancel();
    expect((await run.result).status).toBe('cancelled');
  });

  it('the structured format rejects reasoning with missing fields', () => {
    const parse = parseReasonedDecision(JSON.stringify({ reasoning: { current_goal: 'x' }, final: 'y' }));
    expect(parse).toMatchObject({ ok: false, failure: 'schema' });
    if (!parse.ok) expect(parse.message).toContain('known_facts');
  });

  it('over the question cap the run stops, saying why', async () => {
    const model = scriptModel([ask('first?'), ask('second?')]);
    const run = runAgent({ query: 'x', model, tools: [countingAdd().tool], clarify: { maxQuestions: 1 } });
    await run.result;
    run.answer({ questionId: questionOf(run.events)?.questionId ?? '', value: 'a' });
    const record = await run.result;
    expect(record).toMatchObject({ status: 'stopped', stop_reason: 'unanswered' });
    expect(record.final_answer).toContain('second?');
  });
});
