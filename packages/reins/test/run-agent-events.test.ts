import { describe, expect, it } from 'vitest';
import { runAgent, type Model, type RunEvent } from 'reins';
import { buildRunRecord, scriptModel } from 'reins/testing';
import { act, collect, countingAdd, final, shape } from './helpers.js';

describe('event protocol', () => {
  it('streams start → (reason, act, observe)* → reason → message → done with ids, timestamps and durations', async () => {
    const { tool } = countingAdd();
    const model = scriptModel([act('add', { a: 1, b: 2 }, 'I need the sum'), final('3')]);
    const run = runAgent({ query: '1+2?', model, tools: [tool] });
    const events = await collect(run);

    expect(shape(events)).toEqual([
      'start',
      'step:reason',
      'step:act',
      'step:observe',
      'step:reason',
      'message',
      'done',
    ]);
    expect(events.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(new Set(events.map((e) => e.runId))).toEqual(new Set([run.runId]));
    const steps = events.filter((e): e is Extract<RunEvent, { type: 'step' }> => e.type === 'step');
    expect(steps.map((s) => s.index)).toEqual([1, 1, 1, 2]);
    for (const s of steps) {
      expect(s.endedAt).toBeGreaterThanOrEqual(s.startedAt);
      expect(s.durationMs).toBeGreaterThanOrEqual(0);
    }
    const [, act1, observe1] = steps;
    expect(act1?.phase === 'act' && act1.actId).toBe(observe1?.phase === 'observe' && observe1.actId);
    expect(events[5]).toMatchObject({
      type: 'message',
      text: '3',
      format: 'structured',
      intent: 'answer',
      demo: false,
    });
    expect(events[6]).toMatchObject({ type: 'done', status: 'success', steps: 2 });
  });

  it('a model failure is start → error → done(error), never a blank record', async () => {
    const run = runAgent({ query: 'q', model: scriptModel([{ error: 'http_500' }]), tools: [] });
    const events = await collect(run);
    expect(shape(events)).toEqual(['start', 'error', 'done']);
    expect(events[1]).toMatchObject({ type: 'error', code: 'MODEL_FAILED' });
    expect((events[1] as { message: string }).message).toContain('SERVICE_UNAVAILABLE');
    const record = await run.result;
    expect(record.status).toBe('error');
    expect(record.error?.code).toBe('MODEL_FAILED');
    expect(record.final_answer).not.toBe('');
  });

  it('a model that throws (breaking its contract) ends the run as error INTERNAL instead of crashing', async () => {
    const broken: Model = {
      name: 'broken',
      call: () => {
        throw new Error('adapter bug');
      },
    };
    const record = await runAgent({ query: 'q', model: broken, tools: [] }).result;
    expect(record.status).toBe('error');
    expect(record.error?.message).toContain('adapter bug');
  });

  it('leaving a for-await early ends only that iterator; the run and other iterators go on', async () => {
    const run = runAgent({ query: 'q', model: scriptModel([{ text: final('x'), delayMs: 5 }]), tools: [] });
    for await (const event of run) if (event.type === 'start') break;
    const iterator = run[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ type: 'start' });
    expect(await iterator.return?.()).toEqual({ done: true, value: undefined });
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    expect(shape(await collect(run))).toEqual(['start', 'step:reason', 'message', 'done']);
    expect((await run.result).status).toBe('success');
  });

  it('every iterator replays the whole log from start', async () => {
    const run = runAgent({ query: 'q', model: scriptModel([final('x')]), tools: [] });
    const [a, b] = await Promise.all([collect(run), collect(run)]);
    const c = await collect(run); // after the end, too
    expect(shape(a)).toEqual(['start', 'step:reason', 'message', 'done']);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  });
});

describe('unstructured replies', () => {
  it('keeps unparseable text as the answer, labeled raw', async () => {
    const text = 'Sorry, I think the answer is three {not json';
    const run = runAgent({ query: 'q', model: scriptModel([text]), tools: [] });
    const record = await run.result;
    expect(record).toMatchObject({ status: 'success', final_answer: text, format: 'raw' });
    const reason = run.events.find((e) => e.type === 'step');
    expect(reason).toMatchObject({ phase: 'reason', raw: text, parse: { ok: false } });
  });

  it('never gives a blank reply, even for an empty model reply', async () => {
    const record = await runAgent({ query: 'q', model: scriptModel(['   ']), tools: [] }).result;
    expect(record.format).toBe('raw');
    expect(record.final_answer.trim()).not.toBe('');
  });

  it('acts on a repaired decision and records how it was parsed', async () => {
    const { tool, calls } = countingAdd();
    const model = scriptModel([
      "Sure! {'thought': 'sum', 'action': 'add', 'input': {'a': 1, 'b': 2},}",
      '```json\n{"thought": "done", "final": "3"}\n```',
    ]);
    const run = runAgent({ query: 'q', model, tools: [tool] });
    const record = await run.result;
    expect(calls).toHaveLength(1);
    expect(
      record.steps.filter((s) => s.phase === 'reason').map((s) => (s.detail.parse as { via: string }).via),
    ).toEqual(['repaired', 'extracted']);
    expect(record.final_answer).toBe('3');
  });

  it('an "ask" decision is a question for the user', async () => {
    const record = await runAgent({
      query: 'weather?',
      model: scriptModel([JSON.stringify({ thought: 'city unknown', ask: 'Which city?' })]),
      tools: [],
    }).result;
    expect(record).toMatchObject({ status: 'success', final_answer: 'Which city?', intent: 'ask' });
  });
});

describe('run record', () => {
  it('is a JSON audit record with final_answer, status and every reason/act/observe step', async () => {
    const { tool } = countingAdd();
    const model = scriptModel([act('add', { a: 2, b: 3 }, 'sum first'), final('5')]);
    const run = runAgent({ query: '2+3?', model, tools: [tool] });
    const record = await run.result;
    const json = JSON.parse(JSON.stringify(record)) as typeof record;
    expect(json).toMatchObject({
      schema_version: 1,
      run_id: run.runId,
      status: 'success',
      final_answer: '5',
      query: '2+3?',
    });
    expect(json.steps.map((s) => `${s.index}:${s.phase}`)).toEqual([
      '1:reason',
      '1:act',
      '1:observe',
      '2:reason',
    ]);
    expect(json.steps[0]?.detail).toMatchObject({ thought: 'sum first', tools_offered: true });
    expect(json.steps[1]?.detail).toEqual({ tool: 'add', input: { a: 2, b: 3 } });
    expect(json.steps[2]?.detail).toMatchObject({ observation: { status: 'ok', result: { sum: 5 } } });
    expect(json.steps[1]?.act_id).toBe(json.steps[2]?.act_id);
    expect(json.usage.input_tokens).toBeGreaterThan(0);
    expect(buildRunRecord(run.events)).toEqual(record); // derived from the log, nothing else
  });

  it('keeps its JSON keys in one order, leaving out what does not apply', async () => {
    const keysOf = async (run: ReturnType<typeof runAgent>): Promise<string[]> =>
      Object.keys(JSON.parse(JSON.stringify(await run.result)) as object);
    const head = ['schema_version', 'run_id', 'agent', 'model', 'demo', 'query', 'status'];
    const tail = ['limits', 'usage', 'model_steps', 'started_at', 'ended_at', 'duration_ms', 'steps'];
    const answered = runAgent({ query: 'q', model: scriptModel([final('ok')]), tools: [] });
    expect(await keysOf(answered)).toEqual([...head, 'final_answer', 'format', 'intent', ...tail]);
    const failed = runAgent({ query: 'q', model: scriptModel([]), tools: [] }); // script exhausted
    expect(await keysOf(failed)).toEqual([...head, 'final_answer', 'format', 'intent', 'error', ...tail]);
    const limited = runAgent({
      query: 'q',
      model: scriptModel([act('nope', {}), act('nope', { x: 1 })]),
      tools: [],
      limits: { maxSteps: 2 },
    });
    const stopped = await keysOf(limited);
    expect(stopped).toEqual([...head, 'stop_reason', 'final_answer', 'format', 'intent', ...tail]);
  });

  it('refuses to build a record from an incomplete log', () => {
    expect(() => buildRunRecord([])).toThrow(/complete log/);
  });
});
