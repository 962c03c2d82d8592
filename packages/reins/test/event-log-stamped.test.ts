import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAnswer, runAgent, scriptModel, type RunEvent } from '../src/index.js';
import { EventLog } from '../src/loop/event-log.js';
import { countingAdd } from './helpers.js';

const message = (runId: string, seq: number, at: number): RunEvent => ({
  type: 'message',
  text: 'hi',
  format: 'raw',
  intent: 'answer',
  demo: false,
  runId,
  seq,
  at,
});

describe('EventLog.appendStamped: events born with their stamps', () => {
  it('keeps an event whose stamps are right as it is, the same object', () => {
    const log = new EventLog('run-1', () => 5);
    const first = message('run-1', log.nextSeq, 1.5);
    expect(log.appendStamped(first)).toBe(first);
    const second = message('run-1', log.nextSeq, 2.5);
    log.appendStamped(second);
    expect(log.events.map((e) => [e.seq, e.at, e.runId])).toEqual([
      [0, 1.5, 'run-1'],
      [1, 2.5, 'run-1'],
    ]);
  });

  it('stamps again an event with a stale sequence number or another run id, keeping its time', () => {
    const log = new EventLog('run-1', () => 5);
    log.appendStamped(message('run-1', 0, 1));
    const stale = log.appendStamped(message('run-1', 0, 2)); // seq 0 is taken
    const foreign = log.appendStamped(message('run-2', 2, 3));
    expect([stale.seq, stale.runId, stale.at]).toEqual([1, 'run-1', 2]);
    expect([foreign.seq, foreign.runId, foreign.at]).toEqual([2, 'run-1', 3]);
    expect(log.events.map((e) => e.seq)).toEqual([0, 1, 2]);
  });

  it('refuses an event after done, as append does', () => {
    const log = new EventLog('run-1', () => 5);
    const usage = { inputTokens: 0, outputTokens: 0 };
    log.appendStamped({
      type: 'done',
      status: 'success',
      steps: 0,
      usage,
      durationMs: 0,
      runId: 'run-1',
      seq: 0,
      at: 1,
    });
    expect(log.closed).toBe(true);
    expect(() => log.appendStamped(message('run-1', 1, 2))).toThrow(/event after done/);
  });
});

describe('a run whose events are born stamped', () => {
  const add = countingAdd().tool;

  it('numbers its events in order under its own id, with the stamps last (the JSON is unchanged)', async () => {
    const model = scriptModel([
      '{"action":"add","input":{"a":1,"b":2}}',
      '{"action":"add","input":{"a":3,"b":3}}',
      '{"final":"6"}',
    ]);
    const run = runAgent({ query: 'add', model, tools: [add], limits: { maxSteps: 3 } });
    const record = await run.result;
    const events = run.events;
    expect(record.status).toBe('success');
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(new Set(events.map((e) => e.runId))).toEqual(new Set([record.run_id]));
    for (const event of events) expect(Object.keys(event).slice(-3)).toEqual(['runId', 'seq', 'at']);
    const [said, done] = events.slice(-2);
    expect(Object.keys(said ?? {})).toEqual([
      'type',
      'text',
      'format',
      'intent',
      'demo',
      'degraded',
      'runId',
      'seq',
      'at',
    ]);
    expect(Object.keys(done ?? {})).toEqual([
      'type',
      'status',
      'steps',
      'usage',
      'durationMs',
      'runId',
      'seq',
      'at',
    ]);
    // Each event's time is its own: the act starts when its reasoning ended, the observation after.
    const times = events.map((e) => e.at);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('a structured answer: its data after degraded, the stamps last', async () => {
    const answer = defineAnswer({ schema: z.object({ reply: z.string() }), text: (data) => data.reply });
    const model = scriptModel(['{"final":{"reply":"six"}}']);
    const run = runAgent({ query: 'add', model, tools: [add], answer });
    await run.result;
    const said = run.events.at(-2);
    expect(said).toMatchObject({ type: 'message', text: 'six', data: { reply: 'six' } });
    expect(Object.keys(said ?? {})).toEqual([
      'type',
      'text',
      'format',
      'intent',
      'demo',
      'degraded',
      'data',
      'runId',
      'seq',
      'at',
    ]);
  });

  it('a stopped run: the notice, then done with its stop reason in place', async () => {
    const model = scriptModel([
      '{"action":"add","input":{"a":1,"b":2}}',
      '{"action":"add","input":{"a":1,"b":5}}',
    ]);
    const run = runAgent({ query: 'add', model, tools: [add], limits: { maxSteps: 1 } });
    await run.result;
    const done = run.events.at(-1);
    expect(done?.type).toBe('done');
    expect(Object.keys(done ?? {})).toEqual([
      'type',
      'status',
      'stopReason',
      'steps',
      'usage',
      'durationMs',
      'runId',
      'seq',
      'at',
    ]);
  });
});
