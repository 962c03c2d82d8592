import { afterAll, describe, expect, it } from 'vitest';
import { executeAction, defaultDeps, runAgent } from 'reins';
import { scriptModel } from 'reins/testing';
import { bridges } from './helpers.js';

const fixture = bridges();
afterAll(() => fixture.closeAll());

describe('imported MCP tools in a Reins run', () => {
  it('the loop calls an MCP tool and the model sees its checked observation', async () => {
    const bridge = await fixture.connect({ prefix: 'fx_' });
    const model = scriptModel([
      JSON.stringify({ thought: 'look it up', action: 'fx_lookup', input: { key: 'salt' } }),
      JSON.stringify({ thought: 'done', final: 'salt is 42' }),
    ]);
    const run = runAgent({ query: 'What is salt?', model, tools: bridge.tools(), principal: { id: 'u1' } });
    const record = await run.result;
    expect(record.status).toBe('success');
    expect(record.final_answer).toBe('salt is 42');
    const observe = run.events.find((e) => e.type === 'step' && e.phase === 'observe');
    expect(observe).toMatchObject({
      observation: {
        status: 'ok',
        tool: 'fx_lookup',
        source: 'tool:fx_lookup',
        result: { key: 'salt', value: 42 },
      },
    });
    model.assertComplete();
  });

  it('a model-invented key or an oversize base64 input is refused before any call', async () => {
    const bridge = await fixture.connect({ maxBase64Bytes: 8 });
    const env = {
      registry: new Map(bridge.tools().map((t) => [t.name, t])),
      principal: { id: 'u1' },
      runId: 'r1',
      signal: new AbortController().signal,
      defaultTimeoutMs: 5_000,
      deps: defaultDeps,
    };
    const act = (tool: string, input: unknown) => executeAction({ actId: 'a1', tool, input }, env);
    expect(await act('blob', { data: 'aGVsbG8=' })).toMatchObject({ status: 'ok', result: '5' });
    const oversize = await act('blob', { data: Buffer.alloc(9).toString('base64') });
    expect(oversize).toMatchObject({
      status: 'rejected',
      source: 'runtime',
      error: { code: 'INVALID_PARAMETER' },
    });
    const notBase64 = await act('blob', { data: '<script>' });
    expect(notBase64).toMatchObject({ status: 'rejected', error: { code: 'INVALID_PARAMETER' } });
    const stray = await act('lookup', { key: 'a', space_id: 'someone-else' });
    expect(stray).toMatchObject({ status: 'rejected', error: { code: 'INVALID_PARAMETER' } });
  });
});
