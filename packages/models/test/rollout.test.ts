import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { gradualRollout } from '@reins/models';
import { ToolError, defineTool, runAgent, type Model, type ModelResult } from 'reins';

const reply = (text: string): ModelResult => ({ ok: true, text, usage: { inputTokens: 1, outputTokens: 1 } });
const always = (name: string, text: string): Model => ({ name, call: async () => reply(text) });
const answer = JSON.stringify({ thought: 't', final: 'ok' });
const flaky = defineTool({
  name: 'flaky',
  description: 'flaky',
  input: z.object({}),
  output: z.object({}),
  readOnly: true,
  run: () => {
    throw new ToolError('SERVICE_UNAVAILABLE', 'down');
  },
});

describe('gradual rollout', () => {
  it('sends the configured share of runs to the candidate, sticky per run', async () => {
    const rollout = gradualRollout({
      stable: always('stable', answer),
      candidate: always('candidate', answer),
      share: 0.25,
      assign: (runId) => Number(runId) / 100,
    });
    const answered: string[] = [];
    for (let i = 0; i < 100; i++) {
      const record = await runAgent({ query: 'q', model: rollout.model, tools: [], runId: String(i) }).result;
      answered.push(String(record.steps[0]?.detail.model));
    }
    expect(answered.filter((m) => m === 'candidate')).toHaveLength(25);
    expect(answered.slice(0, 25).every((m) => m === 'candidate')).toBe(true);
  });

  it('switches the candidate off, once, when its error rate passes 5%, and every later run gets stable', async () => {
    const switchedOff: unknown[] = [];
    // The candidate acts with a failing tool on every run it gets: 1 error in 2 steps.
    const candidate = (): Model => {
      let step = 0;
      return {
        name: 'candidate',
        call: async () =>
          reply(++step % 2 === 1 ? JSON.stringify({ thought: 't', action: 'flaky', input: {} }) : answer),
      };
    };
    const candidateModel = candidate();
    const rollout = gradualRollout({
      stable: always('stable', answer),
      candidate: candidateModel,
      share: 0.5,
      minSteps: 10,
      assign: (runId) => (Number(runId) % 2 === 0 ? 0 : 0.99), // even runs → candidate
      onSwitchOff: (stats) => switchedOff.push(stats),
    });
    const models: string[] = [];
    for (let i = 0; i < 40; i++) {
      const run = runAgent({ query: 'q', model: rollout.model, tools: [flaky], runId: String(i) });
      await rollout.observe(run);
      models.push(String((await run.result).steps[0]?.detail.model));
    }
    const stats = rollout.stats();
    expect(stats.enabled).toBe(false);
    expect(stats.errorRate).toBeGreaterThan(0.05);
    expect(switchedOff).toHaveLength(1);
    expect(switchedOff[0]).toMatchObject({ enabled: false, candidateSteps: 10, candidateErrors: 5 });
    const lastCandidateRun = models.lastIndexOf('candidate');
    expect(lastCandidateRun).toBeLessThan(12); // 5 candidate runs × 2 steps = 10 steps, then off
    expect(models.slice(lastCandidateRun + 1).every((m) => m === 'stable')).toBe(true);
  });

  it('keeps a healthy candidate on', async () => {
    const rollout = gradualRollout({
      stable: always('stable', answer),
      candidate: always('candidate', answer),
      share: 1,
      minSteps: 5,
      assign: () => 0,
    });
    for (let i = 0; i < 10; i++)
      await rollout.observe(runAgent({ query: 'q', model: rollout.model, tools: [] }));
    expect(rollout.stats()).toMatchObject({
      enabled: true,
      candidateSteps: 10,
      candidateErrors: 0,
      errorRate: 0,
    });
  });

  it('compares with the stable model: a candidate failing no more than stable (within 5 points) stays on', async () => {
    // Both sides reply with text that never parses: 100 % vs 100 %, no worse than stable.
    const rollout = gradualRollout({
      stable: always('stable', 'not json'),
      candidate: always('candidate', 'not json'),
      share: 0.5,
      window: 10,
      minSteps: 5,
      assign: (key) => (Number(key) % 2 === 0 ? 0 : 0.99),
    });
    for (let i = 0; i < 20; i++)
      await rollout.observe(runAgent({ query: 'q', model: rollout.model, tools: [], runId: String(i) }));
    const stats = rollout.stats();
    expect(stats.enabled).toBe(true);
    expect(stats.arms.candidate).toMatchObject({ errorRate: 1, windowSteps: 10, runs: 10 });
    expect(stats.arms.stable).toMatchObject({ errorRate: 1, windowSteps: 10, runs: 10 });
  });

  it('tells step listeners each timed model step with the side that answered it, until unsubscribed', async () => {
    const rollout = gradualRollout({
      stable: always('stable', answer),
      candidate: always('candidate', answer),
      share: 0.5,
      assign: (key) => (key === 'c' ? 0 : 0.99),
    });
    const steps: { arm: string; model: string }[] = [];
    const durations: number[] = [];
    const stop = rollout.onStep(({ arm, model, durationMs }) => {
      durations.push(durationMs);
      steps.push({ arm, model });
    });
    // A listener that throws (a metric refusing a value) neither stops the others nor the counting.
    rollout.onStep(() => {
      throw new Error('refused');
    });
    for (const runId of ['c', 's', 's'])
      await rollout.observe(runAgent({ query: 'q', model: rollout.model, tools: [], runId }));
    expect(steps).toEqual([
      { arm: 'candidate', model: 'candidate' },
      { arm: 'stable', model: 'stable' },
      { arm: 'stable', model: 'stable' },
    ]);
    for (const ms of durations) expect(ms).toBeGreaterThanOrEqual(0);
    expect(rollout.stats().arms.stable.runs + rollout.stats().arms.candidate.runs).toBe(3);
    stop();
    await rollout.observe(runAgent({ query: 'q', model: rollout.model, tools: [], runId: 'c2' }));
    expect(steps).toHaveLength(3);
  });
});
