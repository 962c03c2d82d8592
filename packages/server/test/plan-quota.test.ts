import { afterEach, describe, expect, it } from 'vitest';
import { scriptModel } from 'reins/testing';
import { createReinsServer, type ReinsServer } from '@reins/server';
import { bearerAuth, countingAdd, final, memoryLogger, writeAs } from './helpers.js';

// A plan agent makes two model calls per question: the planner (logged as `step {phase: "plan"}`)
// and the responder (`step {phase: "reason"}`). README: "Daily model-call quota per principal …
// when `used + held + maxSteps` would pass the limit it is refused (429 QUOTA_EXCEEDED) … So 250
// parallel runs cannot spend past the quota." Only `reason` events were charged, so a plan
// agent's planner calls were free and a user spent past the quota.

const plan = (steps: unknown[]): string => JSON.stringify({ thought: 'planning', steps });

function planAgent(runs: number) {
  const { tool } = countingAdd();
  const replies: string[] = [];
  for (let i = 0; i < runs; i++)
    replies.push(
      plan([{ id: 's1', action: 'add', input: { a: i, b: 2 }, dependsOn: [] }]),
      final(`${i + 2}`),
    );
  const model = scriptModel(replies);
  return { model, agent: { kind: 'plan' as const, model, tools: [tool], limits: { maxSteps: 2 } } };
}

let server: ReinsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const settle = async (s: ReinsServer): Promise<void> => {
  for (let i = 0; i < 50 && s.runs.unfinished('alice').length > 0; i++)
    await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 20)); // the watcher settles the hold
};

describe('daily model-call quota with a plan agent', () => {
  it('charges the planner call too: 4 calls a day allow two 2-call runs, not three', async () => {
    const { model, agent } = planAgent(3);
    server = createReinsServer({
      agents: { planner: agent },
      authenticate: bearerAuth,
      logger: memoryLogger('silent').logger,
      quota: { dailyModelCalls: 4 },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await server.app.request('/v1/runs', {
        method: 'POST',
        headers: writeAs('alice'),
        body: JSON.stringify({ agent: 'planner', input: `add ${i} and two` }),
      });
      statuses.push(response.status);
      await response.arrayBuffer();
      await settle(server);
    }
    expect(model.calls.length).toBeGreaterThanOrEqual(4); // two runs of two model calls each went through
    expect(statuses).toEqual([200, 200, 429]); // the third would be model calls 5 and 6 of a 4-call day
    expect(await server.quota.used('alice')).toBe(4); // planner + responder, twice
    // The same rule for the metrics: the planner's calls are model steps of phase "plan".
    const metrics = await (await server.app.request('/metrics')).text();
    expect(metrics).toMatch(/^reins_step_duration_seconds_count\{agent="planner",phase="plan"\} 2$/m);
    expect(metrics).toMatch(/^reins_step_duration_seconds_count\{agent="planner",phase="reason"\} 2$/m);
  });
});
