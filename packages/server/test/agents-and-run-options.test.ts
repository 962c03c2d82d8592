import { describe, expect, it } from 'vitest';
import { createReinsServer } from '@reins/server';
import { scriptModel } from 'reins/testing';
import { act, as, bearerAuth, countingAdd, final, memoryLogger } from './helpers.js';

interface RunDocument {
  readonly record: {
    readonly status: string;
    readonly stop_reason?: string;
    readonly model: string;
    readonly limits: { maxSteps: number };
  };
}

function server(replies: string[], alternative: string[] = [final('from the alternative')]) {
  const { tool } = countingAdd();
  const main = scriptModel(replies, { name: 'script:main' });
  const other = scriptModel(alternative, { name: 'script:other' });
  return createReinsServer({
    agents: {
      calc: { model: main, models: { other }, tools: [tool], limits: { maxSteps: 3 } },
      helper: (principal) => ({ model: scriptModel([final(`hi ${principal.id}`)]), tools: [] }),
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

describe('GET /v1/agents and the per-run options (maxSteps, model)', () => {
  it('lists each agent with its kind, models, step limit and tools; factories built for the caller', async () => {
    const { app } = server([]);
    expect((await app.request('/v1/agents')).status).toBe(401);
    const reply = await app.request('/v1/agents', { headers: as('ann') });
    expect(reply.status).toBe(200);
    expect(await reply.json()).toEqual({
      agents: [
        {
          name: 'calc',
          kind: 'react',
          model: 'script:main',
          models: ['script:main', 'script:other'],
          maxSteps: 3,
          tools: ['add'],
        },
        { name: 'helper', kind: 'react', model: 'script', models: ['script'], maxSteps: 4, tools: [] },
      ],
    });
  });

  it('maxSteps narrows the run; a larger value is clamped to the agent’s limit', async () => {
    const looping = [
      act('add', { a: 1, b: 1 }),
      act('add', { a: 2, b: 2 }),
      act('add', { a: 3, b: 3 }),
      final('x'),
    ];
    const one = await post(server(looping).app, { agent: 'calc', input: 'sum', maxSteps: 1 });
    expect(one.status).toBe(200);
    const narrowed = ((await one.json()) as RunDocument).record;
    expect(narrowed.limits.maxSteps).toBe(1);
    const big = await post(server(looping).app, { agent: 'calc', input: 'sum', maxSteps: 99 });
    expect(((await big.json()) as RunDocument).record.limits.maxSteps).toBe(3);
  });

  it('refuses a maxSteps that is not a whole number ≥ 1 with a 400 INVALID_PARAMETER', async () => {
    for (const maxSteps of [0, -1, 1.5, '2', null, true]) {
      const reply = await post(server([]).app, { agent: 'calc', input: 'sum', maxSteps });
      expect(reply.status, JSON.stringify(maxSteps)).toBe(400);
      expect(await reply.json()).toMatchObject({
        error: { code: 'INVALID_PARAMETER', message: expect.stringContaining('maxSteps') },
      });
    }
  });

  it('runs the picked model by name; an unknown name is a 400 naming the ones configured', async () => {
    const picked = await post(server([final('main')]).app, {
      agent: 'calc',
      input: 'hi',
      model: 'script:other',
    });
    expect(((await picked.json()) as RunDocument).record.model).toBe('script:other');
    const unknown = await post(server([]).app, { agent: 'calc', input: 'hi', model: 'gpt-9' });
    expect(unknown.status).toBe(400);
    const body = (await unknown.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('INVALID_PARAMETER');
    expect(body.error.message).toContain('script:main, script:other');
    const wrongType = await post(server([]).app, { agent: 'calc', input: 'hi', model: 7 });
    expect(wrongType.status).toBe(400);
  });
});
