import { describe, expect, it } from 'vitest';
import { runAgent, runPlanAgent, stopNotice, type StopFacts, type StopNoticeWriter } from 'reins';
import { scriptModel } from 'reins/testing';
import { act, countingAdd } from './helpers.js';
import { claimsTools, plan, step } from './plan/plan-tools.js';

/** A ReAct run that wants a tool on every step: it stops at its step limit. */
async function stopAtLimit(query: string, writer?: StopNoticeWriter) {
  const { tool } = countingAdd();
  const model = scriptModel([act('add', { a: 1, b: 1 }), act('add', { a: 2, b: 2 })]);
  const run = runAgent({
    query,
    model,
    tools: [tool],
    limits: { maxSteps: 1 },
    ...(writer === undefined ? {} : { stopNotice: writer }),
  });
  return run.result;
}

describe('the stop notice: the runtime’s English by default, the app’s words when it gives them', () => {
  it('default: unchanged', async () => {
    const record = await stopAtLimit('1+1?');
    expect(record).toMatchObject({ status: 'stopped', stop_reason: 'max_steps', intent: 'notice' });
    expect(record.final_answer).toBe(
      'Stopped: the step limit (1 model steps) was reached before a final answer.',
    );
    expect(stopNotice('max_steps', { ...record.limits })).toBe(record.final_answer);
  });

  it('an app’s writer gets the reason, the limits, the question and the default text, and words the notice', async () => {
    const seen: StopFacts[] = [];
    const record = await stopAtLimit('一加一等于几？', (stop) => {
      seen.push(stop);
      return /[\u4e00-\u9fff]/.test(stop.query)
        ? `已停止：到了步数上限（${stop.limits.maxSteps} 步）。`
        : stop.text;
    });
    expect(record).toMatchObject({ status: 'stopped', stop_reason: 'max_steps', intent: 'notice' });
    expect(record.final_answer).toBe('已停止：到了步数上限（1 步）。');
    expect(seen).toEqual([
      {
        reason: 'max_steps',
        limits: expect.objectContaining({ maxSteps: 1 }) as unknown,
        query: '一加一等于几？',
        text: 'Stopped: the step limit (1 model steps) was reached before a final answer.',
      },
    ]);
    const english = await stopAtLimit('what is 1+1?', (stop) => stop.text);
    expect(english.final_answer).toContain('step limit (1 model steps)');
  });

  it('a writer that throws or writes nothing: the runtime’s notice (a stop always says why)', async () => {
    const thrown = await stopAtLimit('q', () => {
      throw new Error('bug in the app');
    });
    expect(thrown.final_answer).toContain('Stopped: the step limit (1 model steps)');
    const blank = await stopAtLimit('q', () => '  ');
    expect(blank.final_answer).toContain('Stopped: the step limit (1 model steps)');
  });

  it('plan runs: every stop goes through the writer (an invalid plan here), with the runtime’s detail in `text`', async () => {
    const { tools } = claimsTools();
    const cyclic = plan([
      step('s1', 'find_policy', { insured: 'a' }, ['s2']),
      step('s2', 'find_policy', { insured: 'b' }, ['s1']),
    ]);
    const seen: StopFacts[] = [];
    const run = runPlanAgent({
      query: '查保单',
      model: scriptModel([cyclic, cyclic]),
      tools,
      stopNotice: (stop) => {
        seen.push(stop);
        return '已停止：查询计划不可用。';
      },
    });
    const record = await run.result;
    expect(record).toMatchObject({ status: 'stopped', stop_reason: 'invalid_plan', intent: 'notice' });
    expect(record.final_answer).toBe('已停止：查询计划不可用。');
    expect(seen[0]?.reason).toBe('invalid_plan');
    expect(seen[0]?.text).toContain('cycle');
    expect(seen[0]?.notRun).toBeUndefined();
  });
});
