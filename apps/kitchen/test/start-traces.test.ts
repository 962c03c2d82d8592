import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { expect, it } from 'vitest';
import { otlpReceiver } from '../../../packages/server/test/otlp-receiver.js';
import { main } from '../src/cli/main.js';
import { startApp } from '../src/cli/start.js';
import { readConfig } from '../src/config.js';
import { openPgliteDb } from '../src/db/pglite-db.js';
import { pgliteTemplate } from './backends.js';

// Issue 18 item 3, end to end: `kitchen start` with OTEL_EXPORTER_OTLP_ENDPOINT sends the
// assistant's run spans to the collector (here a receiver started by the test).

it('a malformed OTEL setting stops `kitchen start` with an error naming it', async () => {
  const err: string[] = [];
  const code = await main(['start'], {
    out: () => undefined,
    err: (l) => err.push(l),
    env: { PORT: '0', OTEL_TRACES_EXPORTER: 'jaeger' },
  });
  expect(code).toBe(2);
  expect(err.join('\n')).toMatch(
    /configuration error: OTEL_TRACES_EXPORTER must be otlp, console or none, not "jaeger" \(INVALID_PARAMETER\)/,
  );
});

it('`kitchen start` says where traces go; a run’s spans reach the collector under the trace id of its record', async () => {
  const otlp = await otlpReceiver();
  const dataDir = await mkdtemp(join(tmpdir(), 'kitchen-traces-'));
  await (await openPgliteDb({ dataDir, loadDataDir: await pgliteTemplate() })).close();
  const out: string[] = [];
  const env = { PORT: '0', REINS_DATA_DIR: dataDir, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint };
  const io = { out: (l: string) => out.push(l), err: (l: string) => out.push(l), env };
  const app = await startApp(readConfig(env), io, { logger: pino({ level: 'silent' }) });
  let closed = false;
  try {
    expect(out).toContain(`  traces: OTLP/HTTP to ${otlp.endpoint}/v1/traces (service xiaojia-kitchen)`);
    const login = await fetch(`${app.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'xiaojia', password: 'demo-xiaojia' }),
    });
    const { token } = (await login.json()) as { token: string };
    const run = await fetch(`${app.url}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ agent: 'kitchen', input: '冰箱里有什么快过期了？' }),
    });
    const { record } = (await run.json()) as {
      record: { run_id: string; status: string; trace_id?: string };
    };
    expect(record.status).toBe('success');
    expect(record.trace_id).toMatch(/^[0-9a-f]{32}$/);
    await app.close(); // flushes the spans still buffered
    closed = true;
    const mine = otlp.spans.filter((s) => s.traceId === record.trace_id);
    expect(mine.map((s) => s.name)).toEqual(
      expect.arrayContaining(['reins.run', 'reins.step', 'reins.model_call', 'reins.tool_call']),
    );
    expect(mine.find((s) => s.name === 'reins.run')).toMatchObject({
      service: 'xiaojia-kitchen',
      attributes: { 'reins.run_id': record.run_id, 'reins.agent': 'kitchen' },
    });
  } finally {
    if (!closed) await app.close();
    await otlp.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}, 60_000);

it('`kitchen ask` exports its run’s spans too, under the trace id it prints; a malformed setting stops it first', async () => {
  const otlp = await otlpReceiver();
  const dataDir = await mkdtemp(join(tmpdir(), 'kitchen-ask-traces-'));
  await (await openPgliteDb({ dataDir, loadDataDir: await pgliteTemplate() })).close();
  const out: string[] = [];
  const err: string[] = [];
  const io = (env: Record<string, string>) => ({
    out: (l: string) => out.push(l),
    err: (l: string) => err.push(l),
    env: { REINS_DATA_DIR: dataDir, ...env },
  });
  try {
    expect(
      await main(
        ['ask', '--user', 'laowang', '冰箱里有什么快过期了？'],
        io({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint }),
      ),
    ).toBe(0);
    const traceId = /trace ([0-9a-f]{32})/.exec(err.join('\n'))?.[1];
    expect(traceId).toBeDefined();
    const mine = otlp.spans.filter((s) => s.traceId === traceId);
    expect(mine.map((s) => s.name)).toEqual(
      expect.arrayContaining(['reins.run', 'reins.step', 'reins.model_call', 'reins.tool_call']),
    );
    expect(mine.find((s) => s.name === 'reins.run')).toMatchObject({
      service: 'xiaojia-kitchen-ask',
      attributes: { 'reins.agent': 'kitchen' },
    });
    err.length = 0;
    expect(await main(['ask', '冰箱里有什么？'], io({ OTEL_TRACES_EXPORTER: 'jaeger' }))).toBe(2);
    expect(err.join('\n')).toMatch(/configuration error: OTEL_TRACES_EXPORTER must be otlp, console or none/);
  } finally {
    await otlp.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}, 60_000);
