import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { act } from './helpers.js';
import { cleanupAfterEach, receiverClosedBy, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';

// Issue 18 item 3 for `reins run`: with the standard OTEL_* variables the CLI exports its run,
// step, model and tool spans (the optional `@reins/server/tracing`, loaded at run time), sends
// them before it exits, and prints the trace id with the run id (`trace_id` in the --json record).

const root = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = join(root, 'packages/reins/bin/reins.js');

const defer = cleanupAfterEach();
const receiver = (): Promise<OtlpReceiver> => receiverClosedBy(defer);

/** `reins run` as the user runs it (the compiled bin), with only `env` set (no OTEL_* of the host). */
function reins(
  env: Record<string, string>,
  ...argv: string[]
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    // Asynchronous: the receiver in this process must answer while the CLI runs.
    execFile(
      process.execPath,
      [BIN, ...argv],
      { cwd: root, env: { PATH: process.env['PATH'] ?? '', ...env }, timeout: 60_000 },
      (error, out, err) => {
        resolve({ code: error === null ? 0 : Number(error.code), out, err });
      },
    );
  });
}

function scriptFile(lines: string[]): string {
  const path = join(mkdtempSync(join(tmpdir(), 'reins-cli-traces-')), 'replies.jsonl');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

const named = (spans: readonly ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);

describe('reins run exports its traces', { timeout: 120_000 }, () => {
  beforeAll(() => {
    // The child runs the compiled CLI while the tests run the sources: rebuild first (incremental,
    // quick when nothing changed) so a stale dist/ cannot hide a bug.
    execFileSync(
      process.execPath,
      [
        join(root, 'node_modules/typescript/bin/tsc'),
        '-b',
        join(root, 'packages/reins/tsconfig.build.json'),
        join(root, 'packages/server/tsconfig.build.json'),
      ],
      { cwd: root, stdio: 'inherit' },
    );
  }, 300_000);

  it('run → step → model call / tool call spans reach the collector, in one trace: the one printed with the run id', async () => {
    const otlp = await receiver();
    const { code, out, err } = await reins(
      { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_SERVICE_NAME: 'cli-test' },
      'run',
      '-q',
      'what is 6*7',
    );
    expect(code).toBe(0);
    expect(err).toContain(`traces: OTLP/HTTP to ${otlp.endpoint}/v1/traces (service cli-test)`);
    const printed = /^run (\S+) · .* · trace ([0-9a-f]{32})$/m.exec(out);
    expect(printed).not.toBeNull();
    const [, runId, traceId] = printed ?? [];

    // The process has exited: every span was sent before it did.
    const spans = otlp.spans;
    const [run, ...otherRuns] = named(spans, 'reins.run');
    expect(otherRuns).toEqual([]);
    expect(run).toMatchObject({
      traceId,
      parentSpanId: undefined,
      service: 'cli-test',
      attributes: { 'reins.run_id': runId, 'reins.agent': 'cli', 'reins.status': 'success' },
    });
    for (const span of spans) expect(span.traceId).toBe(traceId);
    const steps = named(spans, 'reins.step');
    expect(steps.map((s) => s.attributes['reins.step'])).toEqual([1, 2]);
    for (const step of steps) expect(step.parentSpanId).toBe(run?.spanId);
    const stepOf = (span: ReceivedSpan | undefined) =>
      steps.find((s) => s.spanId === span?.parentSpanId)?.attributes['reins.step'];
    expect(named(spans, 'reins.model_call').map(stepOf)).toEqual([1, 2]);
    const tools = named(spans, 'reins.tool_call');
    expect(tools.map((t) => [t.attributes['reins.tool'], t.attributes['reins.status'], stepOf(t)])).toEqual([
      ['calculate', 'ok', 1],
    ]);
  });

  it('a run ending with a non-zero status (stopped by its step limit) still sends its spans; --json has the trace id', async () => {
    const otlp = await receiver();
    const script = scriptFile([
      JSON.stringify(act('calculate', { expression: '1+1' })),
      JSON.stringify(act('calculate', { expression: '2+2' })),
    ]);
    const { code, out } = await reins(
      { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${otlp.endpoint}/v1/traces` },
      'run',
      '-q',
      'sum',
      '--model',
      `script:${script}`,
      '--max-steps',
      '2',
      '--json',
    );
    expect(code).toBe(3);
    const record = JSON.parse(out) as { run_id: string; status: string; trace_id?: string };
    expect(record.status).toBe('stopped');
    expect(record.trace_id).toMatch(/^[0-9a-f]{32}$/);
    const [run] = named(otlp.spans, 'reins.run');
    expect(run).toMatchObject({
      traceId: record.trace_id,
      service: 'reins-cli',
      attributes: { 'reins.run_id': record.run_id, 'reins.status': 'stopped' },
    });
    expect(named(otlp.spans, 'reins.step')).toHaveLength(2);
    for (const span of otlp.spans) expect(span.traceId).toBe(record.trace_id);
  });

  it('a run left waiting for an answer (no terminal: exit status 5) has its spans ended and sent at exit', async () => {
    const otlp = await receiver();
    const { code, out } = await reins(
      { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint },
      'run',
      '--agent',
      'plan',
      '-q',
      'hello there',
    );
    expect(code).toBe(5);
    expect(out).toMatch(/done: awaiting_input/);
    const traceId = / · trace ([0-9a-f]{32})$/m.exec(out)?.[1];
    const [run] = named(otlp.spans, 'reins.run');
    expect(run).toMatchObject({
      traceId,
      attributes: { 'reins.agent': 'cli-plan', 'reins.detached': true },
    });
    expect(named(otlp.spans, 'reins.step').length).toBeGreaterThan(0);
  });

  it('a malformed OTEL setting stops the CLI before the run, with the setting named, a code and exit status 2', async () => {
    const otlp = await receiver();
    const { code, out, err } = await reins(
      { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      'run',
      '-q',
      'what is 6*7',
    );
    expect(code).toBe(2);
    expect(err).toContain(
      'reins: INVALID_PARAMETER: OTEL_EXPORTER_OTLP_PROTOCOL must be http/json (the only one built in), not "grpc"',
    );
    expect(out).toBe('');
    expect(otlp.requests).toEqual([]);
  });

  it('without an OTEL setting nothing is traced: no trace id printed, none in the record', async () => {
    const { code, out, err } = await reins({}, 'run', '-q', 'what is 6*7', '--json');
    expect(code).toBe(0);
    expect(err).not.toContain('traces:');
    expect(JSON.parse(out)).not.toHaveProperty('trace_id');
  });
});
