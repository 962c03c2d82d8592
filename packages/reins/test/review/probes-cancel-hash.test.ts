import { expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, runAgent, type ObserveStep } from 'reins';
import { scriptModel } from 'reins/testing';
import { act, final } from '../helpers.js';

it('C1: a call cancelled before its approval was asked is not recorded as "no approval arrived in time"', async () => {
  const order = defineTool({
    name: 'order',
    description: 'o',
    readOnly: false,
    input: z.object({ item: z.string() }),
    output: z.object({ ok: z.boolean() }),
    run: () => ({ ok: true }),
  });
  const run = runAgent({
    query: 'q',
    model: scriptModel([act('order', { item: 'x' }), final('ok')]),
    tools: [order],
    principal: { id: 'u' },
  });
  for await (const e of run)
    if (e.type === 'step' && e.phase === 'act') {
      run.cancel();
      break;
    }
  const record = await run.result;
  expect(record.status).toBe('cancelled');
  expect(run.events.some((e) => e.type === 'approval')).toBe(false); // no approval was ever asked
  const obs = (run.events.find((e) => e.type === 'step' && e.phase === 'observe') as ObserveStep).observation;
  expect(obs.error?.code).toBe('CANCELLED');
});
