import { describe, expect, it } from 'vitest';
import { scriptModel } from 'reins/testing';
import { startTracingFromEnv, type Tracing } from '../src/index.js';
import { formatTraceParent, readTraceParent } from '../src/trace-parent.js';
import { act, as, countingAdd, final, postJson, start, type Started } from './helpers.js';
import { orderAcrossRestart } from './order-across-restart.js';
import { cleanupAfterEach, receiverClosedBy, type OtlpReceiver } from './otlp-receiver.js';

// Issue 18 item 3: a caller's W3C `traceparent` on POST /v1/runs makes the run span its child,
// in its trace; a malformed one is ignored (the run starts a trace of its own).

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const SAMPLED = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;

describe('readTraceParent (W3C Trace Context)', () => {
  it('reads version 00, its sampled flag, and a later version by its first four fields', () => {
    expect(readTraceParent(SAMPLED)).toEqual({ traceId: CALLER_TRACE, spanId: CALLER_SPAN, sampled: true });
    expect(readTraceParent(` 00-${CALLER_TRACE}-${CALLER_SPAN}-00 `)?.sampled).toBe(false);
    expect(readTraceParent(`00-${CALLER_TRACE}-${CALLER_SPAN}-03`)?.sampled).toBe(true);
    expect(readTraceParent(`01-${CALLER_TRACE}-${CALLER_SPAN}-01-what-comes-later`)?.spanId).toBe(
      CALLER_SPAN,
    );
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['garbage', 'not-a-traceparent'],
    ['version ff', `ff-${CALLER_TRACE}-${CALLER_SPAN}-01`],
    ['version 00 with more fields', `00-${CALLER_TRACE}-${CALLER_SPAN}-01-extra`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${CALLER_SPAN}-01`],
    ['an all-zero span id', `00-${CALLER_TRACE}-${'0'.repeat(16)}-01`],
    ['upper case', SAMPLED.toUpperCase()],
    ['a short trace id', `00-${CALLER_TRACE.slice(1)}-${CALLER_SPAN}-01`],
  ])('ignores %s', (_name, header) => {
    expect(readTraceParent(header)).toBeUndefined();
  });

  it('writes back what it read', () => {
    for (const header of [SAMPLED, `00-${CALLER_TRACE}-${CALLER_SPAN}-00`]) {
      const parent = readTraceParent(header);
      expect(parent && formatTraceParent(parent)).toBe(header);
    }
  });
});

const defer = cleanupAfterEach();
const receiver = (): Promise<OtlpReceiver> => receiverClosedBy(defer);

async function tracing(otlp: OtlpReceiver): Promise<Tracing> {
  const t = await startTracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint });
  defer(() => t.shutdown());
  return t;
}

async function server(options: Parameters<typeof start>[0]): Promise<Started> {
  const s = await start(options);
  defer(() => s.close());
  return s;
}

function addAgent() {
  return {
    model: scriptModel([act('add', { a: 1, b: 2 }), final('3')]),
    tools: [countingAdd().tool],
  };
}

async function runWith(s: Started, traceparent: string | undefined) {
  const headers = { ...as('a'), ...(traceparent === undefined ? {} : { traceparent }) };
  const {
    status,
    body,
    headers: got,
  } = await postJson(`${s.url}/v1/runs`, { agent: 'calc', input: 'add' }, headers);
  const record = body.record as { run_id: string; status: string; trace_id?: string };
  return { status, record, traceHeader: got.get('x-trace-id') };
}

describe('POST /v1/runs with a traceparent header', () => {
  it("the run span is the caller's span's child: same trace id in the span, the record and X-Trace-Id", async () => {
    const otlp = await receiver();
    const traced = await tracing(otlp);
    const s = await server({ agents: { calc: addAgent() }, ...traced.serverOptions });
    const { status, record, traceHeader } = await runWith(s, SAMPLED);
    expect(status).toBe(200);
    expect(record).toMatchObject({ status: 'success', trace_id: CALLER_TRACE });
    expect(traceHeader).toBe(CALLER_TRACE);
    const read = (await (await fetch(`${s.url}/v1/runs/${record.run_id}`, { headers: as('a') })).json()) as {
      trace_id?: string;
    };
    expect(read.trace_id).toBe(CALLER_TRACE);

    await traced.shutdown();
    const runs = otlp.spans.filter((sp) => sp.name === 'reins.run');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ traceId: CALLER_TRACE, parentSpanId: CALLER_SPAN });
    expect(runs[0]?.spanId).not.toBe(CALLER_SPAN);
    expect(otlp.spans.map((sp) => sp.name)).toEqual(
      expect.arrayContaining(['reins.step', 'reins.model_call', 'reins.tool_call']),
    );
    for (const span of otlp.spans) expect(span.traceId).toBe(CALLER_TRACE);
  });

  it.each([
    ['a malformed header', `00-${CALLER_TRACE}-zzzzzzzzzzzzzzzz-01`],
    ['a header with an all-zero trace id', `00-${'0'.repeat(32)}-${CALLER_SPAN}-01`],
  ])('%s is ignored: the run succeeds in a new trace, a root span', async (_name, header) => {
    const otlp = await receiver();
    const traced = await tracing(otlp);
    const s = await server({ agents: { calc: addAgent() }, ...traced.serverOptions });
    const { status, record, traceHeader } = await runWith(s, header);
    expect(status).toBe(200);
    expect(record.status).toBe('success');
    expect(record.trace_id).toMatch(/^(?!0{32})[0-9a-f]{32}$/);
    expect(record.trace_id).not.toBe(CALLER_TRACE);
    expect(traceHeader).toBe(record.trace_id);
    await traced.shutdown();
    const [run] = otlp.spans.filter((sp) => sp.name === 'reins.run');
    expect(run).toMatchObject({ traceId: record.trace_id, parentSpanId: undefined });
  });

  it("the caller's sampling decision is kept: not sampled (flags 00), no span is exported, the trace id is still the caller's", async () => {
    const otlp = await receiver();
    const traced = await tracing(otlp);
    const s = await server({ agents: { calc: addAgent() }, ...traced.serverOptions });
    const { status, record, traceHeader } = await runWith(s, `00-${CALLER_TRACE}-${CALLER_SPAN}-00`);
    expect(status).toBe(200);
    expect(record).toMatchObject({ status: 'success', trace_id: CALLER_TRACE });
    expect(traceHeader).toBe(CALLER_TRACE);
    await traced.shutdown();
    expect(otlp.spans).toEqual([]);
  });

  it("with tracing off the caller's trace id is not taken as the run's (nothing of this run is in that trace)", async () => {
    const s = await server({ agents: { calc: addAgent() } });
    const { status, record, traceHeader } = await runWith(s, SAMPLED);
    expect(status).toBe(200);
    expect(record.status).toBe('success');
    expect(record.trace_id).toBeUndefined();
    expect(traceHeader).toBeNull();
  });

  it("a durable run rebuilt after a restart stays under the caller's span: the resumed stretch is its child too", async () => {
    const otlp = await receiver();
    const { record, approved } = await orderAcrossRestart({
      server,
      tracing: () => tracing(otlp),
      headers: { traceparent: SAMPLED },
    });
    expect(record).toMatchObject({ status: 'awaiting_approval', trace_id: CALLER_TRACE });
    expect(approved.body.record).toMatchObject({ status: 'success', trace_id: CALLER_TRACE });
    const runs = otlp.spans.filter((sp) => sp.name === 'reins.run');
    expect(runs.map((sp) => [sp.parentSpanId, sp.attributes['reins.resumed']])).toEqual([
      [CALLER_SPAN, undefined],
      [CALLER_SPAN, true],
    ]);
    for (const span of otlp.spans) expect(span.traceId).toBe(CALLER_TRACE);
  });
});
