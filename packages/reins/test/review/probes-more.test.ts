import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ToolError,
  createToolPolicies,
  defaultDeps,
  defineTool,
  runAgent,
  type ApprovalEvent,
  type ObserveStep,
} from 'reins';
import { scriptModel } from 'reins/testing';
import { act, final } from '../helpers.js';

const owner = { id: 'user-1' };
const many = (calls: { action: string; input: Record<string, unknown> }[]) =>
  JSON.stringify({ thought: 't', actions: calls });

describe('review probes: more', () => {
  it('R1: a sync read-only tool failing transiently is retried and answers', async () => {
    let calls = 0;
    const flaky = defineTool({
      name: 'flaky',
      description: 'f',
      readOnly: true,
      input: z.object({}),
      output: z.object({ n: z.number() }),
      run: () => {
        calls++;
        if (calls < 3) throw new ToolError('SERVICE_UNAVAILABLE', 'busy');
        return { n: calls };
      },
    });
    const run = runAgent({
      query: 'q',
      model: scriptModel([act('flaky', {}), final('ok')]),
      tools: [flaky],
      policies: createToolPolicies(),
    });
    await run.result;
    const obs = (run.events.find((e) => e.type === 'step' && e.phase === 'observe') as ObserveStep)
      .observation;
    expect(obs).toMatchObject({ status: 'ok', attempts: 3 });
  });

  it('R2: cancelling a paused run leaves no timer behind and settles result', async () => {
    const live = new Set<unknown>();
    const deps = {
      setTimer: (cb: () => void, ms: number) => {
        const h = defaultDeps.setTimer(() => {
          live.delete(h);
          cb();
        }, ms);
        live.add(h);
        return h;
      },
      clearTimer: (h: unknown) => {
        live.delete(h);
        defaultDeps.clearTimer(h);
      },
    };
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
      principal: owner,
      deps,
    });
    expect((await run.result).status).toBe('awaiting_approval');
    run.cancel();
    expect((await run.result).status).toBe('cancelled');
    expect(live.size).toBe(0);
  });

  it('R3: a read-only tool whose fallback changes something, in a parallel step, still ends', async () => {
    const ocr = defineTool({
      name: 'ocr',
      description: 'o',
      readOnly: true,
      input: z.object({ id: z.string() }),
      output: z.object({ t: z.string() }),
      policy: { retries: 0 },
      fallback: { tool: 'manual_ocr', lost: 'speed' },
      run: () => {
        throw new ToolError('SERVICE_UNAVAILABLE', 'down');
      },
    });
    const manual = defineTool({
      name: 'manual_ocr',
      description: 'queues a paid human job',
      readOnly: false,
      input: z.object({ id: z.string() }),
      output: z.object({ t: z.string() }),
      run: ({ id }) => ({ t: id }),
    });
    const slow = defineTool({
      name: 'slow',
      description: 's',
      readOnly: true,
      input: z.object({}),
      output: z.object({}),
      run: async () => {
        await new Promise((r) => setTimeout(r, 30));
        return {};
      },
    });
    const run = runAgent({
      query: 'q',
      model: scriptModel([
        many([
          { action: 'slow', input: {} },
          { action: 'ocr', input: { id: 'a' } },
        ]),
        final('ok'),
      ]),
      tools: [ocr, manual, slow],
      principal: owner,
      policies: createToolPolicies(),
    });
    expect((await run.result).status).toBe('awaiting_approval');
    await new Promise((r) => setTimeout(r, 60));
    const ap = run.events.find((e) => e.type === 'approval') as ApprovalEvent;
    run.approve({ by: owner, actId: ap.actId, inputHash: ap.inputHash, approve: true });
    const end = await Promise.race([run.result, new Promise((r) => setTimeout(() => r('TIMED OUT'), 500))]);
    expect(end).not.toBe('TIMED OUT');
  });
});
