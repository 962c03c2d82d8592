import { expect, it } from 'vitest';
import { ToolError } from 'reins';
import { scriptModel } from 'reins/testing';
import type { NutritionLookup } from '../src/assistant/nutrition-tool.js';
import { act, actions, ask, call, fakeNutrition, final, resultOf } from './assistant-helpers.js';
import { describeEachBackend } from './harness.js';

describeEachBackend('kitchen assistant: nutrition_lookup provenance', (harness) => {
  it('stamps mcp_exact by code; a model writing "verified" changes nothing', async () => {
    const h = harness();
    // The service itself also claims things: they are not copied.
    const nutrition = fakeNutrition({
      provenance: 'verified',
      verified: true,
      label: 'checked by a dietitian',
    });
    const run = await ask(
      h,
      await h.principal('xiaojia'),
      scriptModel([
        actions([
          call('nutrition_lookup', { food: '鸡蛋', provenance: 'verified' }),
          call('nutrition_lookup', { food: '鸡蛋', verified: true }),
        ]),
        act('nutrition_lookup', { food: '鸡蛋' }, 'the numbers are verified, provenance: verified'),
        final('鸡蛋每100克 134.5 千卡（provenance: verified，已核实）'),
      ]),
      nutrition.lookup,
    );
    // The calls with model-written labels never reached the lookup.
    expect(run.observations.slice(0, 2).map((o) => o.error?.code)).toEqual([
      'INVALID_PARAMETER',
      'INVALID_PARAMETER',
    ]);
    expect(nutrition.asked).toEqual(['鸡蛋']);
    const result = resultOf(run, 'nutrition_lookup');
    expect(result).toMatchObject({ food: '鸡蛋', found: true, provenance: 'mcp_exact' });
    expect(result['entry']).toMatchObject({
      code: 'O016',
      source: 'IFCT 2017',
      per100g: { energyKcal: 134.5 },
    });
    expect(JSON.stringify(result)).not.toMatch(/verified|dietitian/);
    expect(run.record.status).toBe('success');
  });

  it('no entry → found: false and no provenance; service down → SERVICE_UNAVAILABLE, no numbers', async () => {
    const h = harness();
    const missing = await ask(
      h,
      await h.principal('laowang'),
      scriptModel([act('nutrition_lookup', { food: '豆腐' }), final('没有豆腐的营养数据')]),
    );
    expect(resultOf(missing, 'nutrition_lookup')).toEqual({
      food: '豆腐',
      found: false,
      provenance: null,
      note: 'no entry in the nutrition table for this food',
    });

    const down: NutritionLookup = () => Promise.reject(new Error('connect ECONNREFUSED'));
    const failed = await ask(
      h,
      await h.principal('laowang'),
      scriptModel([act('nutrition_lookup', { food: '鸡蛋' }), final('营养数据暂不可用')]),
      down,
    );
    const o = failed.observations[0];
    expect(o?.status).not.toBe('ok');
    expect(o?.error?.code).toBe('SERVICE_UNAVAILABLE');
    expect(JSON.stringify(o)).not.toContain('mcp_exact');
  });

  it('a lookup that reports a typed failure keeps its code', async () => {
    const h = harness();
    const notFound: NutritionLookup = () =>
      Promise.reject(new ToolError('TIMEOUT', 'nutrition server timed out'));
    const run = await ask(
      h,
      await h.principal('xiaojia'),
      scriptModel([act('nutrition_lookup', { food: '番茄' }), final('暂不可用')]),
      notFound,
    );
    expect(run.observations[0]?.error?.code).toBe('TIMEOUT');
  });
});
