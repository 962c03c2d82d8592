import { describe, expect, it } from 'vitest';
import { scriptModel } from 'reins/testing';
import { startTracingFromEnv, type Tracing } from '../src/index.js';
import { act, as, countingAdd, final, memoryLogger, postJson, start, type Started } from './helpers.js';
import { orderAcrossRestart } from './order-across-restart.js';
import { cleanupAfterEach, receiverClosedBy, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';

// Issue 18 item 3: with the standard OTEL_* variables the run, step, model and tool spans leave
// the process over OTLP/HTTP; the trace id is in the run record and in the log lines.

const defer = cleanupAfterEach();
const receiver = (): Promise<OtlpReceiver> => receiverClosedBy(defer);

async function tracing(env: Record<string, string>): Promise<Tracing> {
  const t = await startTracingFromEnv(env);
  defer(() => t.shutdown());
  return t;
}

async function server(options: Parameters<typeof start>[0]): Promise<Started> {
  const s = await start(options);
  defer(() => s.close());
  return s;
}

const usage = { inputTokens: 10, outputTokens: 5 };
function addAgent() {
  const { tool } = countingAdd();
  return {
    model: scriptModel([
      { text: act('add', { a: 1, b: 2 }), usage },
      { text: final('3'), usage },
    ]),
    tools: [tool],
  };
}

const named = (spans: readonly ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);

describe('traces exported over OTLP/HTTP to a receiver started by the test', () => {
  it('run → step → model call / tool call spans arrive with the run id, their parents, and the trace id of the record and the log lines', async () => {
    const otlp = await receiver();
    const traced = await tracing({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_SERVICE_NAME: 'reins-test',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-token=s3cret%20value',
    });
    expect(traced.enabled).toBe(true);
    expect(traced.describe).toBe(`traces: OTLP/HTTP to ${otlp.endpoint}/v1/traces (service reins-test)`);
    const { logger, lines } = memoryLogger('info');
    const s = await server({ agents: { calc: addAgent() }, logger, ...traced.serverOptions });

    const { status, body, headers } = await postJson(
      `${s.url}/v1/runs`,
      { agent: 'calc', input: 'add' },
      as('a'),
    );
    expect(status).toBe(200);
    const record = body.record as { run_id: string; trace_id?: string };
    expect(record.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(headers.get('x-trace-id')).toBe(record.trace_id);
    const got = (await (await fetch(`${s.url}/v1/runs/${record.run_id}`, { headers: as('a') })).json()) as {
      trace_id?: string;
    };
    expect(got.trace_id).toBe(record.trace_id);

    await traced.shutdown(); // flushes the batch
    expect(otlp.requests[0]).toMatchObject({ path: '/v1/traces', contentType: 'application/json' });
    expect(otlp.requests[0]?.headers['x-collector-token']).toBe('s3cret value');
    const spans = otlp.spans;
    const [run, ...otherRuns] = named(spans, 'reins.run');
    expect(otherRuns).toEqual([]);
    expect(run).toMatchObject({
      traceId: record.trace_id,
      parentSpanId: undefined,
      service: 'reins-test',
      attributes: { 'reins.run_id': record.run_id, 'reins.agent': 'calc', 'reins.status': 'success' },
    });
    for (const span of spans) expect(span.traceId).toBe(record.trace_id);
    const steps = named(spans, 'reins.step');
    expect(steps.map((st) => st.attributes['reins.step'])).toEqual([1, 2]);
    for (const step of steps) expect(step.parentSpanId).toBe(run?.spanId);
    const stepOf = (span: ReceivedSpan) => steps.find((st) => st.spanId === span.parentSpanId);
    const models = named(spans, 'reins.model_call');
    expect(models.map((m) => stepOf(m)?.attributes['reins.step'])).toEqual([1, 2]);
    expect(models[0]?.attributes).toMatchObject({ 'reins.run_id': record.run_id, 'reins.tokens.input': 10 });
    const [tool] = named(spans, 'reins.tool_call');
    expect(tool?.attributes).toMatchObject({
      'reins.run_id': record.run_id,
      'reins.tool': 'add',
      'reins.status': 'ok',
    });
    expect(stepOf(tool as ReceivedSpan)?.attributes['reins.step']).toBe(1);

    // Every line about the run carries the trace id, and the run span's id.
    const runLines = lines.filter((l) => l.runId === record.run_id);
    expect(runLines.map((l) => l.msg)).toEqual(
      expect.arrayContaining(['run started', 'act', 'observe', 'run done']),
    );
    for (const line of runLines)
      expect(line).toMatchObject({ trace_id: record.trace_id, span_id: run?.spanId });
  });

  it('a durable run keeps its trace id across a restart: the record read back has it, and the resumed steps join the trace', async () => {
    const otlp = await receiver();
    let read: { trace_id?: string } | undefined;
    const { record, approved, placed } = await orderAcrossRestart({
      server,
      tracing: () => tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint }),
      meanwhile: async (two, runId) => {
        read = (await (await fetch(`${two.url}/v1/runs/${runId}`, { headers: as('alice') })).json()) as {
          trace_id?: string;
        };
      },
    });
    expect(record.status).toBe('awaiting_approval');
    expect(record.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(read?.trace_id).toBe(record.trace_id);
    expect(approved.status).toBe(200);
    expect(approved.body.record).toMatchObject({ status: 'success', trace_id: record.trace_id });
    expect(placed).toEqual(['milk']);
    // The first process let go of the paused run at its shutdown: its stretch ends `detached`,
    // not as the in-memory cancel (never stored) would say.
    const [before, resumed, ...more] = named(otlp.spans, 'reins.run');
    expect(more).toEqual([]);
    expect(before?.attributes).toMatchObject({ 'reins.run_id': record.run_id, 'reins.detached': true });
    expect(before?.attributes['reins.status']).toBeUndefined();
    expect(named(otlp.spans, 'reins.tool_call').map((t) => t.attributes['reins.status'])).toEqual([
      undefined,
    ]);
    const firstSteps = otlp.spans.filter(
      (sp) => sp.name === 'reins.step' && sp.parentSpanId === before?.spanId,
    );
    expect(firstSteps.map((sp) => sp.attributes['reins.step'])).toEqual([1]);
    expect(resumed).toMatchObject({ traceId: record.trace_id, attributes: { 'reins.resumed': true } });
    // The resumed stretch's steps are children of its run span, in the same trace.
    const laterSteps = otlp.spans.filter(
      (sp) => sp.name === 'reins.step' && sp.parentSpanId === resumed?.spanId,
    );
    expect(laterSteps.map((sp) => sp.attributes['reins.step'])).toEqual([1, 2]); // step 1's observe, then step 2
    for (const sp of otlp.spans) expect(sp.traceId).toBe(record.trace_id);
  });

  it('a collector refusing the spans is reported (once, with the URL), and the run is not failed for it', async () => {
    const otlp = await receiver();
    const reports: string[] = [];
    const traced = await startTracingFromEnv(
      // A wrong path: the receiver answers 404, which the exporter does not retry.
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${otlp.endpoint}/wrong/path?token=secret` },
      { onExportError: (message) => reports.push(message) },
    );
    defer(() => traced.shutdown());
    const s = await server({ agents: { calc: addAgent() }, ...traced.serverOptions });
    const { body } = await postJson(`${s.url}/v1/runs`, { agent: 'calc', input: 'add' }, as('a'));
    expect(body.record).toMatchObject({ status: 'success' });
    await traced.shutdown();
    expect(otlp.requests.map((r) => r.path)).toEqual(['/wrong/path?token=secret']);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatch(
      new RegExp(`^traces: \\d+ span\\(s\\) could not be sent to ${otlp.endpoint}/wrong/path: `),
    );
    expect(reports[0]).not.toContain('secret');
  });
});
