import { describe, expect, it } from 'vitest';
import { createReinsServer } from '@reins/server';
import { scriptModel } from 'reins/testing';
import { act, as, bearerAuth, countingAdd, final, memoryLogger } from './helpers.js';

interface RunDocument {
  readonly record: {
    readonly limits: { maxSteps: number };
    readonly max_steps_auto?: { chosen: number; reason: string };
    readonly model_steps: number;
  };
}

const TWO_ASKS = '家里谁有过敏？另外这周晚饭怎么安排？'; // auto: 6 steps

function server(replies: string[], dailyModelCalls?: number) {
  const { tool } = countingAdd();
  const model = () => scriptModel(replies);
  return createReinsServer({
    ...(dailyModelCalls === undefined ? {} : { quota: { dailyModelCalls } }),
    agents: {
      auto: { model: model(), tools: [tool], limits: { maxSteps: 'auto' } },
      calc: { model: model(), tools: [tool], limits: { maxSteps: 3 } },
      wide: { model: model(), tools: [tool], limits: { maxSteps: 10 } },
    },
    authenticate: bearerAuth,
    logger: memoryLogger('silent').logger,
  });
}

const post = (app: ReturnType<typeof server>['app'], body: unknown) =>
  app.request('/v1/runs', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...as('ann') },
    body: JSON.stringify(body),
  });

const looping = Array.from({ length: 12 }, (_, n) => act('add', { a: n, b: 1 }));

describe("maxSteps 'auto' on the server", () => {
  it("an agent configured with 'auto' chooses per query; /v1/agents shows its ceiling (12)", async () => {
    const { app } = server(looping);
    const reply = await post(app, { agent: 'auto', input: TWO_ASKS });
    const { record } = (await reply.json()) as RunDocument;
    expect(record.limits.maxSteps).toBe(6);
    expect(record.max_steps_auto?.chosen).toBe(6);
    expect(record.model_steps).toBe(6);
    const agents = (await (await app.request('/v1/agents', { headers: as('ann') })).json()) as {
      agents: { name: string; maxSteps: number }[];
    };
    expect(agents.agents.find((a) => a.name === 'auto')?.maxSteps).toBe(12);
  });

  it('a request may ask for "auto": chosen within the agent\'s limit', async () => {
    const wide = (await (
      await post(server(looping).app, { agent: 'wide', input: TWO_ASKS, maxSteps: 'auto' })
    ).json()) as RunDocument;
    expect(wide.record.limits.maxSteps).toBe(6);
    const greeting = (await (
      await post(server([final('hi')]).app, { agent: 'wide', input: '你好', maxSteps: 'auto' })
    ).json()) as RunDocument;
    expect(greeting.record.limits.maxSteps).toBe(3);
    const capped = (await (
      await post(server(looping).app, { agent: 'calc', input: TWO_ASKS, maxSteps: 'auto' })
    ).json()) as RunDocument;
    expect(capped.record.limits.maxSteps).toBe(3);
    expect(capped.record.max_steps_auto?.reason).toContain('bounded to 3..3');
  });

  it("a number in the request replaces an auto agent's choice; other strings are a 400", async () => {
    const fixed = (await (
      await post(server(looping).app, { agent: 'auto', input: TWO_ASKS, maxSteps: 2 })
    ).json()) as RunDocument;
    expect(fixed.record.limits.maxSteps).toBe(2);
    expect(fixed.record.max_steps_auto).toBeUndefined();
    const bad = await post(server([]).app, { agent: 'wide', input: 'q', maxSteps: 'AUTO' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: { code: 'INVALID_PARAMETER', message: expect.stringContaining('"auto"') },
    });
  });

  it("the quota reserves the number auto chooses, not the agent's ceiling", async () => {
    const { app } = server([final('hi'), final('hi')], 3);
    const ceiling = await post(app, { agent: 'wide', input: '你好', maxSteps: 10 });
    expect(ceiling.status).toBe(429); // 10 calls reserved > 3 a day
    const auto = await post(app, { agent: 'wide', input: '你好', maxSteps: 'auto' });
    expect(auto.status).toBe(200); // 3 reserved
    expect(((await auto.json()) as RunDocument).record.limits.maxSteps).toBe(3);
  });
});
