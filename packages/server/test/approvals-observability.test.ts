import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type ApprovalEvent, type RunEvent, type RunRecord } from 'reins';
import { scriptModel, type ScriptReply } from 'reins/testing';
import { act, as, final, memoryLogger, openSse, postJson, sleep, start, type Started } from './helpers.js';

let running: Started | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

function shop(replies: ScriptReply[]) {
  const placed: unknown[] = [];
  const tool = defineTool({
    name: 'place_order',
    description: 'Orders groceries.',
    input: z.object({ item: z.string() }),
    output: z.object({ orderId: z.string() }),
    readOnly: false,
    run: (input) => {
      placed.push(input);
      return { orderId: 'o-1' };
    },
  });
  const model = scriptModel(replies);
  return { placed, model, agent: { model, tools: [tool] } };
}

async function pause(url: string): Promise<ApprovalEvent> {
  const r = await postJson(`${url}/v1/runs`, { agent: 'shop', input: 'order' }, as('alice'));
  return (r.body.events as RunEvent[]).find((e) => e.type === 'approval') as ApprovalEvent;
}

const answer = (a: ApprovalEvent) => ({ actId: a.actId, inputHash: a.inputHash, approve: true });

describe('a paused run in traces and logs', () => {
  it('one run span from start to the final done, with a pause event and an approval span', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const { agent } = shop([act('place_order', { item: 'eggs' }), final('ordered')]);
    running = await start({ agents: { shop: agent }, tracer: provider.getTracer('test') });
    const approval = await pause(running.url);
    await sleep(30);
    expect(exporter.getFinishedSpans().map((s) => s.name)).not.toContain('reins.run'); // a pause is not the end
    const r = await postJson(
      `${running.url}/v1/runs/${approval.runId}/approve`,
      answer(approval),
      as('alice'),
    );
    const events = r.body.events as RunEvent[];
    await expect.poll(() => exporter.getFinishedSpans().some((s) => s.name === 'reins.run')).toBe(true);
    const spans = exporter.getFinishedSpans();
    const byName = (name: string): ReadableSpan[] => spans.filter((s) => s.name === name);
    const runs = byName('reins.run');
    expect(runs).toHaveLength(1);
    expect(runs[0]?.attributes).toMatchObject({ 'reins.status': 'success' });
    expect(runs[0]?.events.map((e) => [e.name, e.attributes?.['reins.status']])).toEqual([
      ['reins.paused', 'awaiting_approval'],
    ]);
    const toMs = ([s, ns]: [number, number]) => s * 1000 + ns / 1e6;
    expect(toMs(runs[0]?.endTime as [number, number])).toBeCloseTo(events.at(-1)?.at as number, 0);
    const [wait] = byName('reins.approval');
    expect(wait?.attributes).toMatchObject({
      'reins.act_id': approval.actId,
      'reins.tool': 'place_order',
      'reins.approval': 'approved',
    });
    expect(byName('reins.tool_call').map((t) => t.attributes['reins.status'])).toEqual(['ok']);
    await provider.shutdown();
  });

  it('logs the request, the pause, the answer (by whom) and the end', async () => {
    const { logger, lines } = memoryLogger('info');
    const { agent } = shop([act('place_order', { item: 'eggs' }), final('ordered')]);
    running = await start({ agents: { shop: agent }, logger });
    const approval = await pause(running.url);
    await postJson(`${running.url}/v1/runs/${approval.runId}/approve`, answer(approval), as('alice'));
    await expect.poll(() => lines.some((l) => l.msg === 'run done')).toBe(true);
    const msgs = lines.filter((l) => l.runId === approval.runId).map((l) => l.msg);
    expect(msgs).toEqual([
      'run started',
      'reason',
      'act',
      'approval requested',
      'run paused',
      'approval answered',
      'observe',
      'reason',
      'message',
      'run done',
    ]);
    expect(lines.find((l) => l.msg === 'approval answered')).toMatchObject({ user: 'alice', approved: true });
    expect(lines.find((l) => l.msg === 'observe')).toMatchObject({ approval: 'approved', status: 'ok' });
  });
});

describe('the continuation after an approval', () => {
  it('is cancelled when its SSE client goes away (it is running again)', async () => {
    const { model, placed, agent } = shop([
      act('place_order', { item: 'eggs' }),
      { text: final('ordered'), delayMs: 300 },
    ]);
    running = await start({ agents: { shop: agent } });
    const approval = await pause(running.url);
    const client = await openSse(`${running.url}/v1/runs/${approval.runId}/approve`, {
      body: answer(approval),
      headers: as('alice'),
    });
    await client.waitFor((f) => f.event === 'step');
    client.destroy(); // the model is thinking (300 ms)
    let record: RunRecord | undefined;
    await expect
      .poll(async () => {
        const response = await fetch(`${running?.url}/v1/runs/${approval.runId}`, { headers: as('alice') });
        record = (await response.json()) as RunRecord;
        return record.status;
      })
      .toBe('cancelled');
    expect(placed).toHaveLength(1); // approved and made before the disconnect
    expect(model.calls[1]?.signal.aborted).toBe(true);
  });
});
