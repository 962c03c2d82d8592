import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { scriptModel } from 'reins/testing';
import { act, as, countingAdd, final, memoryLogger, postJson, start, type Started } from './helpers.js';

let running: Started | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

const usage = { inputTokens: 100, outputTokens: 20 };
function twoToolRun() {
  const { tool } = countingAdd();
  return {
    model: scriptModel([
      { text: act('add', { a: 1, b: 2 }), usage },
      { text: act('add', { a: -1, b: 2 }), usage },
      { text: final('3'), usage },
    ]),
    tools: [tool],
  };
}

function sample(metrics: string, series: string): number | undefined {
  const line = metrics.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('/metrics', () => {
  it('has the named series with values derived from the run events', async () => {
    running = await start({ agents: { calc: twoToolRun() } });
    const { status } = await postJson(`${running.url}/v1/runs`, { agent: 'calc', input: 'add' }, as('a'));
    expect(status).toBe(200);
    const response = await fetch(`${running.url}/metrics`);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(sample(text, 'reins_steps_total{agent="calc",action="add",status="ok"}')).toBe(1);
    expect(sample(text, 'reins_steps_total{agent="calc",action="add",status="error"}')).toBe(1);
    expect(sample(text, 'reins_steps_total{agent="calc",action="final",status="ok"}')).toBe(1);
    expect(sample(text, 'reins_tool_errors_total{tool="add",code="NOT_FOUND"}')).toBe(1);
    expect(sample(text, 'reins_runs_total{agent="calc",status="success"}')).toBe(1);
    expect(sample(text, 'reins_model_tokens_total{model="script",kind="input"}')).toBe(300);
    expect(sample(text, 'reins_model_tokens_total{model="script",kind="output"}')).toBe(60);
    expect(sample(text, 'reins_step_duration_seconds_count{agent="calc",phase="reason"}')).toBe(3);
    expect(sample(text, 'reins_step_duration_seconds_count{agent="calc",phase="act"}')).toBe(2);
    expect(sample(text, 'reins_runs_in_flight')).toBe(0);
    expect(text).toContain('# TYPE reins_quota_fail_open_total counter');
  });
});

describe('/health', () => {
  it('is ok with in-process counters, lists the models, and runs extra checks (a failing one → degraded)', async () => {
    running = await start({ agents: { calc: twoToolRun() } });
    const ok = await (await fetch(`${running.url}/health`)).json();
    expect(ok).toMatchObject({
      status: 'ok',
      checks: { store: { status: 'up' }, redis: { status: 'disabled' }, 'model:script': { status: 'up' } },
    });
    await running.close();
    running = await start({
      agents: { calc: twoToolRun() },
      healthChecks: {
        'mcp:nutrition': async () => {
          throw new Error('connect ECONNREFUSED');
        },
        breaker: () => ({ status: 'up', state: 'closed' }),
        hung: () => new Promise<void>(() => {}),
      },
      limits: { healthDeadlineMs: 50 },
    });
    const degraded = await (await fetch(`${running.url}/health`)).json();
    expect(degraded).toMatchObject({
      status: 'degraded',
      checks: {
        'mcp:nutrition': { status: 'down', detail: 'connect ECONNREFUSED' },
        breaker: { status: 'up', state: 'closed' },
        hung: { status: 'down', detail: 'no answer within 50 ms' },
      },
    });
  });

  it('a model whose calls keep failing is down (from run events, no probe)', async () => {
    running = await start({
      agents: {
        bad: {
          model: scriptModel([{ error: 'http_500' }, { error: 'http_500' }, { error: 'http_500' }], {
            name: 'flaky',
          }),
        },
      },
    });
    for (const input of ['a', 'b', 'c'])
      await postJson(`${running.url}/v1/runs`, { agent: 'bad', input }, as('u'));
    const health = await (await fetch(`${running.url}/health`)).json();
    expect(health).toMatchObject({ status: 'degraded', checks: { 'model:flaky': { status: 'down' } } });
  });
});

describe('tracing', () => {
  it('records run → step → model call / tool call spans with run id, act id, tool and status, at the events’ times', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    running = await start({ agents: { calc: twoToolRun() }, tracer: provider.getTracer('test') });
    const { body } = await postJson(`${running.url}/v1/runs`, { agent: 'calc', input: 'add' }, as('a'));
    const events = body.events as {
      type: string;
      phase?: string;
      actId?: string;
      at: number;
      runId: string;
    }[];
    await expect.poll(() => exporter.getFinishedSpans().some((s) => s.name === 'reins.run')).toBe(true);
    const spans = exporter.getFinishedSpans();
    const byName = (name: string): ReadableSpan[] => spans.filter((s) => s.name === name);
    const parentOf = (s: ReadableSpan) =>
      spans.find((p) => p.spanContext().spanId === s.parentSpanContext?.spanId);

    const [run] = byName('reins.run');
    expect(run?.parentSpanContext).toBeUndefined();
    expect(run?.attributes).toMatchObject({
      'reins.run_id': events[0]?.runId,
      'reins.status': 'success',
      'reins.steps': 3,
    });
    const steps = byName('reins.step');
    expect(steps.map((s) => s.attributes['reins.step'])).toEqual([1, 2, 3]);
    for (const step of steps) expect(parentOf(step)).toBe(run);
    const models = byName('reins.model_call');
    expect(models).toHaveLength(3);
    for (const m of models) expect(parentOf(m)?.name).toBe('reins.step');
    const tools = byName('reins.tool_call');
    expect(tools.map((t) => [t.attributes['reins.tool'], t.attributes['reins.status']])).toEqual([
      ['add', 'ok'],
      ['add', 'error'],
    ]);
    const actIds = events.filter((e) => e.phase === 'act').map((e) => e.actId);
    expect(tools.map((t) => t.attributes['reins.act_id'])).toEqual(actIds);
    expect(tools[1]?.attributes['reins.error_code']).toBe('NOT_FOUND');
    for (const t of tools)
      expect(parentOf(t)?.attributes['reins.step']).toBe(parentOf(t) === steps[0] ? 1 : 2);
    // Times come from the events: the run span starts at `start` and ends at `done`.
    const toMs = ([s, ns]: [number, number]) => s * 1000 + ns / 1e6;
    expect(toMs(run?.startTime as [number, number])).toBeCloseTo(events[0]?.at as number, 0);
    expect(toMs(run?.endTime as [number, number])).toBeCloseTo(events.at(-1)?.at as number, 0);
    await provider.shutdown();
  });
});

describe('logs', () => {
  it('JSON lines with the run id (and act id on act/observe); PII masked; the Authorization header never logged', async () => {
    const { logger, lines, raw } = memoryLogger('debug');
    const { tool } = countingAdd();
    running = await start({
      agents: {
        calc: { model: scriptModel([act('add', { a: 13812345678, b: 1 }), final('done')]), tools: [tool] },
      },
      logger,
    });
    const secret = 'Bearer user:alice';
    const { status } = await postJson(
      `${running.url}/v1/runs`,
      { agent: 'calc', input: 'call me at 13812345678 or bob@example.com' },
      { authorization: secret },
    );
    expect(status).toBe(200);
    await expect.poll(() => lines.some((l) => l.msg === 'run done')).toBe(true);
    const runLines = lines.filter((l) =>
      ['run started', 'reason', 'act', 'observe', 'message', 'run done'].includes(l.msg as string),
    );
    expect(runLines.map((l) => l.msg)).toEqual([
      'run started',
      'reason',
      'act',
      'observe',
      'reason',
      'message',
      'run done',
    ]);
    for (const line of runLines) expect(typeof line.runId).toBe('string');
    for (const line of runLines.filter((l) => l.msg === 'act' || l.msg === 'observe')) {
      expect(line.actId).toMatch(/^[0-9a-f-]{36}$/);
    }
    const all = raw.join('\n');
    expect(all).not.toContain('13812345678');
    expect(all).not.toContain('bob@example.com');
    expect(all).not.toContain(secret);
    expect(lines.find((l) => l.msg === 'request')).toMatchObject({
      headers: { authorization: '[REDACTED]' },
    });
  });
});
