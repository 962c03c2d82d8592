import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolError, defineTool, runAgent, type Observation, type RunRecord } from 'reins';
import { scriptModel } from 'reins/testing';
import { act, blankTool, countingAdd, final } from './helpers.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function observations(record: RunRecord): Observation[] {
  return record.steps.filter((s) => s.phase === 'observe').map((s) => s.detail.observation as Observation);
}

describe('input validation before the tool runs', () => {
  it('rejects a model-invented space_id (extra key) with INVALID_PARAMETER; run is never called', async () => {
    const { tool, calls } = countingAdd();
    const model = scriptModel([act('add', { a: 1, b: 2, space_id: 42 }), final('sorry')]);
    const record = await runAgent({ query: 'q', model, tools: [tool] }).result;
    expect(calls).toHaveLength(0);
    const [obs] = observations(record);
    expect(obs).toMatchObject({
      status: 'rejected',
      source: 'runtime',
      error: { code: 'INVALID_PARAMETER', layer: 'input' },
    });
    expect(obs?.error?.message).toContain('space_id');
    expect(record.model_steps).toBe(2); // the bad call counted against the budget
  });

  it('rejects wrong types and missing keys', async () => {
    const { tool, calls } = countingAdd();
    const model = scriptModel([act('add', { a: '1', b: 2 }), act('add', { a: 1 }), final('x')]);
    const record = await runAgent({ query: 'q', model, tools: [tool] }).result;
    expect(calls).toHaveLength(0);
    expect(observations(record).map((o) => o.error?.code)).toEqual([
      'INVALID_PARAMETER',
      'INVALID_PARAMETER',
    ]);
    expect(observations(record)[1]?.error?.details).toEqual([{ path: 'b', message: expect.any(String) }]);
  });

  it('answers an unknown tool name with UNKNOWN_TOOL listing the real ones, and counts the step', async () => {
    const { tool, calls } = countingAdd();
    const model = scriptModel([
      act('get_stock_price', { symbol: 'X' }),
      act('add', { a: 2, b: 2 }),
      final('4'),
    ]);
    const record = await runAgent({ query: 'q', model, tools: [tool], limits: { maxSteps: 3 } }).result;
    expect(observations(record)[0]).toMatchObject({ status: 'rejected', error: { code: 'UNKNOWN_TOOL' } });
    expect(observations(record)[0]?.error?.message).toContain('available: add');
    expect(calls).toHaveLength(1);
    expect(record.status).toBe('success');
  });

  it('the model sees the rejection and can correct itself', async () => {
    const { tool } = countingAdd();
    const model = scriptModel([
      act('add', { a: 1, b: 2, user_id: 'u2' }),
      act('add', { a: 1, b: 2 }),
      final('3'),
    ]);
    await runAgent({ query: 'q', model, tools: [tool] }).result;
    expect(model.calls[1]?.messages.at(-1)?.content).toMatch(/"status":"rejected".*INVALID_PARAMETER/);
  });
});

describe('three checks on the observation', () => {
  const shaky = (result: unknown, check?: (o: { temperature: number }) => true | string) =>
    defineTool({
      name: 'weather',
      description: 'weather',
      input: z.object({}),
      output: z.object({ temperature: z.number().int() }),
      readOnly: true,
      ...(check === undefined ? {} : { check }),
      run: () => result as { temperature: number },
    });

  it('output schema failure → error INVALID_OUTPUT at layer schema; the bad value never reaches the model', async () => {
    const model = scriptModel([act('weather', {}), final('x')]);
    const record = await runAgent({ query: 'q', model, tools: [shaky({ temperature: 'hot' })] }).result;
    expect(observations(record)[0]).toMatchObject({
      status: 'error',
      error: { code: 'INVALID_OUTPUT', layer: 'schema' },
    });
    expect(observations(record)[0]?.result).toBeUndefined();
    expect(model.calls[1]?.messages.at(-1)?.content).not.toContain('hot');
  });

  it('business rule failure → error CHECK_FAILED at layer check', async () => {
    const check = (o: { temperature: number }) =>
      o.temperature < 60 || `temperature ${o.temperature} is not physical`;
    const model = scriptModel([act('weather', {}), final('x')]);
    const record = await runAgent({ query: 'q', model, tools: [shaky({ temperature: 999 }, check)] }).result;
    expect(observations(record)[0]).toMatchObject({
      status: 'error',
      error: { code: 'CHECK_FAILED', layer: 'check', message: 'temperature 999 is not physical' },
    });
  });

  it('a ToolError keeps its code; an untyped throw is INTERNAL', async () => {
    const failing = (name: string, thrown: unknown) =>
      blankTool(name, {
        run: () => {
          throw thrown;
        },
      });
    const model = scriptModel([act('typed', {}), act('untyped', {}), final('x')]);
    const tools = [
      failing('typed', new ToolError('NOT_FOUND', 'no such city')),
      failing('untyped', new TypeError('boom')),
    ];
    const record = await runAgent({ query: 'q', model, tools }).result;
    expect(observations(record).map((o) => [o.status, o.error?.code, o.error?.layer])).toEqual([
      ['error', 'NOT_FOUND', 'status'],
      ['error', 'INTERNAL', 'status'],
    ]);
    expect(observations(record)[1]?.error?.message).toContain('boom');
  });

  it('masks PII in results before the model (and the record) sees them', async () => {
    const leaky = defineTool({
      name: 'member',
      description: 'member',
      input: z.object({}),
      output: z.object({ name: z.string(), phone: z.string(), note: z.string() }),
      readOnly: true,
      run: () => ({
        name: '张三',
        phone: '13812345678',
        note: 'mail zhang.san@example.com, id 11010519491231002X',
      }),
    });
    const model = scriptModel([act('member', {}), final('x')]);
    const record = await runAgent({ query: 'q', model, tools: [leaky] }).result;
    const seen = model.calls[1]?.messages.at(-1)?.content ?? '';
    expect(seen).toContain('张三');
    expect(seen).not.toContain('13812345678');
    expect(seen).not.toContain('zhang.san@');
    expect(seen).not.toContain('110105194912310');
    expect(seen).toContain('*******5678');
    expect(JSON.stringify(record)).not.toContain('13812345678');
  });
});

describe('trusted context', () => {
  it('passes the server-given principal, the run id and a fresh UUIDv4 act id per act', async () => {
    const { tool, calls } = countingAdd();
    const model = scriptModel([act('add', { a: 1, b: 1 }), act('add', { a: 2, b: 2 }), final('x')]);
    const principal = { id: 'user-7', claims: { household: 'h1' } };
    const run = runAgent({ query: 'q', model, tools: [tool], principal });
    await run.result;
    expect(calls.map((c) => c.ctx.principal)).toEqual([principal, principal]);
    expect(calls.map((c) => c.ctx.runId)).toEqual([run.runId, run.runId]);
    const [first, second] = calls.map((c) => c.ctx.actId);
    expect(first).toMatch(UUID_V4);
    expect(second).toMatch(UUID_V4);
    expect(first).not.toBe(second);
  });

  it('refuses duplicate tool names and bad tool definitions (programmer mistakes throw)', () => {
    const { tool } = countingAdd();
    expect(() => runAgent({ query: 'q', model: scriptModel([]), tools: [tool, tool] })).toThrow(
      /duplicate tool name/,
    );
    expect(() => defineTool({ ...tool, name: 'has space' })).toThrow(TypeError);
    expect(() => defineTool({ ...tool, timeoutMs: 0 })).toThrow(/timeoutMs/);
  });
});
