import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, runPlanAgent, type ClarifyEvent, type PlanStepEvent, type RunEvent } from 'reins';
import { scriptModel } from 'reins/testing';
import { final } from '../helpers.js';
import { typedAnswer } from '../../src/plan/typed-answer.js';
import { plan, step } from './plan-tools.js';

const plans = (events: readonly RunEvent[]) =>
  events.filter((e): e is PlanStepEvent => e.type === 'step' && e.phase === 'plan');

// The clarifier patched the user's answer in as the text typed: a missing number answered "4"
// failed validation as a string, the run re-planned (a model call) and ended invalid_plan.
describe('a missing numeric value asked of the user', () => {
  it('patches the answer so that it passes the schema (no re-plan, the step runs)', async () => {
    const booked: unknown[] = [];
    const book = defineTool({
      name: 'book_table',
      description: 'book a table',
      input: z.object({ restaurant: z.string(), guests: z.number().int().min(1) }),
      output: z.object({ ok: z.boolean() }),
      readOnly: true,
      run: (input) => {
        booked.push(input);
        return { ok: true };
      },
    });
    const model = scriptModel([
      plan([step('s1', 'book_table', { restaurant: 'Da Dong' })]),
      final('booked'),
      final('booked'),
    ]);
    const run = runPlanAgent({ query: 'book Da Dong tonight', model, tools: [book] });
    const paused = await run.result;
    expect(paused.status).toBe('awaiting_input');
    const q = run.events.find((e): e is ClarifyEvent => e.type === 'clarify');
    expect(q?.field).toBe('guests');
    expect(run.answer({ questionId: q?.questionId ?? '', value: '4' })).toMatchObject({ ok: true });
    const record = await run.result;
    const clarified = plans(run.events).find((p) => p.reason === 'clarified');
    expect(clarified?.validation.problems).toEqual([]);
    expect(booked).toEqual([{ restaurant: 'Da Dong', guests: 4 }]);
    expect(record.status).toBe('success');
  });
});

describe('typedAnswer', () => {
  const tool = defineTool({
    name: 't',
    description: 't',
    input: z.object({
      text: z.string(),
      count: z.number().int(),
      ratio: z.number().nullable(),
      yes: z.boolean(),
      tags: z.array(z.string()),
      where: z.object({ floor: z.number(), room: z.string() }),
      list: z.array(z.number()),
    }),
    output: z.object({}),
    readOnly: true,
    run: () => ({}),
  });

  it('gives a field the type its schema asks for', () => {
    expect(typedAnswer(tool, 'count', ' 4 ')).toBe(4);
    expect(typedAnswer(tool, 'ratio', '0.5')).toBe(0.5);
    expect(typedAnswer(tool, 'yes', 'TRUE')).toBe(true);
    expect(typedAnswer(tool, 'yes', 'false')).toBe(false);
    expect(typedAnswer(tool, 'tags', '["a","b"]')).toEqual(['a', 'b']);
    expect(typedAnswer(tool, 'where.floor', '3')).toBe(3);
    expect(typedAnswer(tool, 'list.0', '7')).toBe(7);
  });

  it('keeps the text as typed when it is not of the type, or the field is a string', () => {
    expect(typedAnswer(tool, 'text', '4')).toBe('4');
    expect(typedAnswer(tool, 'count', 'four')).toBe('four');
    expect(typedAnswer(tool, 'count', '')).toBe('');
    expect(typedAnswer(tool, 'count', '0x10')).toBe('0x10');
    expect(typedAnswer(tool, 'yes', 'yes')).toBe('yes');
    expect(typedAnswer(tool, 'tags', '{"a":1}')).toBe('{"a":1}');
    expect(typedAnswer(tool, 'nope', '4')).toBe('4');
    expect(typedAnswer(undefined, 'count', '4')).toBe('4');
  });
});
