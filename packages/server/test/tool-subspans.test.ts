import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { defineTool } from 'reins';
import { scriptModel } from 'reins/testing';
import { act, as, final, start, type Started } from './helpers.js';

let running: Started | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe('tool sub-spans', () => {
  it('a tool that does more than one thing (ctx.span) gets a child span per part, at its own times', async () => {
    const lookup = defineTool({
      name: 'lookup',
      description: 'fetches then parses',
      input: z.object({ q: z.string() }),
      output: z.object({ n: z.number() }),
      readOnly: true,
      run: async ({ q }, ctx) => {
        const raw = await (ctx.span?.('fetch', async () => {
          await new Promise((resolve) => setTimeout(resolve, 15));
          return `${q}!`;
        }) ?? Promise.resolve(q));
        await ctx
          .span?.('validate', () => {
            throw new Error('bad row');
          })
          .catch(() => undefined);
        return { n: raw.length };
      },
    });
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    running = await start({
      agents: { look: { model: scriptModel([act('lookup', { q: 'abc' }), final('4')]), tools: [lookup] } },
      tracer: provider.getTracer('test'),
    });
    const response = await fetch(`${running.url}/v1/runs`, {
      method: 'POST',
      headers: { ...as('a'), 'content-type': 'application/json' },
      body: JSON.stringify({ agent: 'look', input: 'look it up' }),
    });
    const body = (await response.json()) as { events: { type: string; phase?: string; source?: string }[] };
    expect(body.events.filter((e) => e.source === 'tool_span')).toHaveLength(2);
    await expect.poll(() => exporter.getFinishedSpans().some((s) => s.name === 'reins.run')).toBe(true);
    const spans = exporter.getFinishedSpans();
    const parentOf = (s: ReadableSpan) =>
      spans.find((p) => p.spanContext().spanId === s.parentSpanContext?.spanId);
    const fetchSpan = spans.find((s) => s.name === 'reins.tool_call.fetch');
    const validate = spans.find((s) => s.name === 'reins.tool_call.validate');
    expect(parentOf(fetchSpan as ReadableSpan)?.name).toBe('reins.tool_call');
    expect(parentOf(validate as ReadableSpan)?.name).toBe('reins.tool_call');
    expect(validate?.status.code).toBe(2); // ERROR
    const toMs = ([s, ns]: [number, number]) => s * 1000 + ns / 1e6;
    const took =
      toMs(fetchSpan?.endTime as [number, number]) - toMs(fetchSpan?.startTime as [number, number]);
    expect(took).toBeGreaterThanOrEqual(10);
    await provider.shutdown();
  });
});
