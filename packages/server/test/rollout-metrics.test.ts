import { afterEach, describe, expect, it } from 'vitest';
import { gradualRollout } from '@reins/models';
import type { Model } from 'reins';
import { scriptModel } from 'reins/testing';
import { as, start, type Started } from './helpers.js';

let running: Started | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

const metric = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
};

describe('gradual rollout in /metrics', () => {
  it('the server shows every run to the rollout; its switch-off is visible in /metrics', async () => {
    // Every run goes to the candidate, whose replies never parse: its error rate is 100 %.
    const candidate = scriptModel(
      Array.from({ length: 30 }, () => 'not json at all'),
      { name: 'candidate' },
    );
    const stable = scriptModel([], { name: 'stable' });
    const rollout = gradualRollout({ stable, candidate, share: 1, minSteps: 3, assign: () => 0 });
    running = await start({
      agents: { chat: { model: rollout.model, tools: [] } },
      rollouts: { 'chat-v2': rollout },
    });
    const before = await (await fetch(`${running.url}/metrics`)).text();
    expect(metric(before, 'reins_rollout_enabled{rollout="chat-v2"}')).toBe(1);
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${running.url}/v1/runs`, {
        method: 'POST',
        headers: { ...as('u1'), 'content-type': 'application/json' },
        body: JSON.stringify({ agent: 'chat', input: `question ${i}` }),
      });
      expect(response.status).toBe(200);
      await response.json();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    const after = await (await fetch(`${running.url}/metrics`)).text();
    expect(metric(after, 'reins_rollout_candidate_steps{rollout="chat-v2"}')).toBe(3);
    expect(metric(after, 'reins_rollout_error_rate{rollout="chat-v2"}')).toBe(1);
    expect(metric(after, 'reins_rollout_enabled{rollout="chat-v2"}')).toBe(0);
    expect(rollout.stats().enabled).toBe(false);
  });
});

/** One run of the `chat` agent per user, in order (each answered 200), then `/metrics` as text. */
async function askThenScrape(users: readonly string[]): Promise<string> {
  const url = running?.url;
  if (url === undefined) throw new Error('start the server first');
  for (const user of users) {
    const response = await fetch(`${url}/v1/runs`, {
      method: 'POST',
      headers: { ...as(user), 'content-type': 'application/json' },
      body: JSON.stringify({ agent: 'chat', input: `question of ${user}` }),
    });
    expect(response.status).toBe(200);
    await response.json();
  }
  await new Promise((resolve) => setTimeout(resolve, 50)); // the rollout observes the runs' ends
  return (await fetch(`${url}/metrics`)).text();
}

describe('the model stack in /metrics', () => {
  it('compares both sides of a rollout by arm and reports the reasoning cache hit rate', async () => {
    const answer = JSON.stringify({ thought: 't', final: 'ok' });
    const stable = scriptModel(
      Array.from({ length: 10 }, () => answer),
      { name: 'stable' },
    );
    const candidate = scriptModel(['not json', 'not json'], { name: 'candidate' });
    // Users u1 and u2 get the candidate; u3 the stable model.
    const rollout = gradualRollout({
      stable,
      candidate,
      share: 0.5,
      assign: (user) => (user === 'u3' ? 0.9 : 0.1),
    });
    const cache = { stats: () => ({ hits: 3, misses: 1, skipped: 2, hitRate: 0.75 }) };
    running = await start({
      agents: { chat: { model: rollout.model, tools: [] } },
      rollouts: { 'chat-v2': rollout },
      reasoningCaches: { model: cache },
    });
    const text = await askThenScrape(['u1', 'u2', 'u3', 'u3']);
    expect(metric(text, 'reins_rollout_runs{rollout="chat-v2",arm="candidate"}')).toBe(2);
    expect(metric(text, 'reins_rollout_runs{rollout="chat-v2",arm="stable"}')).toBe(2);
    expect(metric(text, 'reins_rollout_window_error_rate{rollout="chat-v2",arm="candidate"}')).toBe(1);
    expect(metric(text, 'reins_rollout_window_error_rate{rollout="chat-v2",arm="stable"}')).toBe(0);
    expect(metric(text, 'reins_rollout_average_steps{rollout="chat-v2",arm="stable"}')).toBe(1);
    expect(metric(text, 'reins_rollout_success_rate{rollout="chat-v2",arm="stable"}')).toBe(1);
    expect(text).toContain('reins_rollout_step_latency_seconds{rollout="chat-v2",arm="candidate"}');
    expect(metric(text, 'reins_reasoning_cache_hit_rate{cache="model"}')).toBe(0.75);
    expect(metric(text, 'reins_reasoning_cache_lookups{cache="model",outcome="skip"}')).toBe(2);
  });
});

describe('rollout step latency histogram in /metrics', () => {
  it('observes each model step in the bucket of the side (and model) that answered it', async () => {
    // The runs' clock moves only when a model answers: stable takes 0.2 s a step, candidate 3 s.
    let clock = 1_700_000_000_000;
    const taking = (seconds: number, model: Model): Model => ({
      name: model.name,
      call: async (request) => {
        clock += seconds * 1000;
        return model.call(request);
      },
    });
    const answer = JSON.stringify({ thought: 't', final: 'ok' });
    const stable = taking(0.2, scriptModel([answer, answer], { name: 'stable' }));
    const candidate = taking(3, scriptModel([answer], { name: 'candidate' }));
    // u1 gets the candidate; u2 the stable model (twice).
    const rollout = gradualRollout({
      stable,
      candidate,
      share: 0.5,
      assign: (user) => (user === 'u1' ? 0.1 : 0.9),
    });
    running = await start({
      agents: { chat: { model: rollout.model, tools: [] } },
      rollouts: { 'chat-v2': rollout },
      deps: { run: { now: () => clock } },
    });
    const text = await askThenScrape(['u1', 'u2', 'u2']);
    const labels = (arm: string, model: string) => `rollout="chat-v2",arm="${arm}",model="${model}"`;
    const histogram = 'reins_rollout_step_duration_seconds';
    const bucket = (arm: string, model: string, le: string) =>
      metric(text, `${histogram}_bucket{le="${le}",${labels(arm, model)}}`);
    expect(bucket('stable', 'stable', '0.1')).toBe(0);
    expect(bucket('stable', 'stable', '0.25')).toBe(2);
    expect(bucket('candidate', 'candidate', '2.5')).toBe(0);
    expect(bucket('candidate', 'candidate', '5')).toBe(1);
    expect(bucket('candidate', 'candidate', '+Inf')).toBe(1);
    expect(metric(text, `${histogram}_count{${labels('stable', 'stable')}}`)).toBe(2);
    expect(metric(text, `${histogram}_sum{${labels('stable', 'stable')}}`)).toBeCloseTo(0.4);
    expect(metric(text, `${histogram}_sum{${labels('candidate', 'candidate')}}`)).toBeCloseTo(3);
    // The mean gauge is kept, and agrees with the histogram.
    expect(metric(text, 'reins_rollout_step_latency_seconds{rollout="chat-v2",arm="stable"}')).toBeCloseTo(
      0.2,
    );
    expect(text).not.toContain('arm="candidate",model="stable"');
    expect(text).not.toContain('arm="stable",model="candidate"');
  });
});
