import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEvents, ROOT, type OtherFrame } from './child-server.js';
import { killKitchens, startKitchenProcess } from './kitchen-process.js';
import type { RunEvent } from 'reins';

// Issue 16.12, with real processes: SIGTERM to `kitchen start` (embedded PGlite) while 40 SSE
// runs and REST writes are under way. Before: 40 of 40 streams reset with no `done`, and
// writes committed but answered with a socket error. Now: every write gets an HTTP answer
// (committed ⇔ 2xx), every stream ends with a `done`, and the runs cut short resume after the
// restart on the same data directory.

const STREAMS = 40;
const WRITES = 24;

/**
 * An OpenAI-compatible model server: a question with "slow" is answered only after `release()`
 * (or when the caller hangs up), any other after 300 ms.
 */
function fakeModelServer() {
  let released = false;
  const held = new Set<() => void>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const reply = () => {
        if (res.destroyed) return;
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            id: 'fake',
            choices: [
              {
                index: 0,
                finish_reason: 'stop',
                message: { role: 'assistant', content: '今晚吃番茄炒蛋。' },
              },
            ],
            usage: { prompt_tokens: 5, completion_tokens: 5 },
          }),
        );
      };
      if (!body.includes('slow') || released) return void setTimeout(reply, 300);
      held.add(reply);
      res.on('close', () => held.delete(reply));
    });
  });
  return {
    server,
    listen: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () =>
          resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`),
        ),
      ),
    release: () => {
      released = true;
      for (const reply of held) reply();
      held.clear();
    },
  };
}

async function login(url: string): Promise<string> {
  const response = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'xiaojia', password: 'demo-xiaojia' }),
  });
  expect(response.status).toBe(200);
  return (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}

let dataDir = '';
const model = fakeModelServer();
let modelUrl = '';

beforeAll(async () => {
  // The process runs the built app: build it (incremental), so a stale dist/ cannot hide a bug.
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-b', join(ROOT, 'apps/kitchen/tsconfig.build.json')], { cwd: ROOT });
  dataDir = await mkdtemp(join(tmpdir(), 'kitchen-shutdown-'));
  modelUrl = await model.listen();
}, 180_000);

afterAll(async () => {
  killKitchens();
  model.server.closeAllConnections();
  model.server.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('SIGTERM to kitchen start (embedded, real processes)', () => {
  it('answers every write, ends every stream with a done, and resumes the cut runs after the restart', async () => {
    const env = {
      REINS_DATA_DIR: dataDir,
      REINS_MODEL: 'openai:fake',
      OPENAI_BASE_URL: modelUrl,
      REINS_DRAIN_GRACE_MS: '1500',
      REINS_MAX_CONCURRENT_RUNS: 'off',
      REINS_USER_RUNS_PER_MINUTE: 'off',
    };
    const first = await startKitchenProcess(env);
    const cookie = await login(first.url);
    const headers = { cookie, 'content-type': 'application/json' };

    // 40 streams: half answer within the grace, half are held by the model until after it.
    const streams = Array.from({ length: STREAMS }, async (_, i) => {
      const response = await fetch(`${first.url}/v1/runs`, {
        method: 'POST',
        headers: { ...headers, accept: 'text/event-stream' },
        body: JSON.stringify({
          agent: 'kitchen',
          input: i % 2 === 0 ? `晚饭吃什么 quick ${i}` : `晚饭吃什么 slow ${i}`,
        }),
      });
      const events: RunEvent[] = [];
      const others: OtherFrame[] = [];
      const runId = response.headers.get('x-run-id') ?? '';
      const ended = response.ok
        ? readEvents(response, events, others)
        : response.text().then(() => undefined);
      return { i, status: response.status, runId, events, others, ended };
    });
    const opened = await Promise.all(streams);
    expect(opened.every((s) => s.status === 200)).toBe(true);
    await new Promise((r) => setTimeout(r, 150)); // every run has started its model call

    // REST writes racing the signal (sent as soon as the first write is answered, so the
    // others are under way): each gets an HTTP answer, 201 only if it was committed.
    let firstAnswered: () => void = () => undefined;
    const oneAnswered = new Promise<void>((resolve) => (firstAnswered = resolve));
    const writes = Array.from({ length: WRITES }, (_, i) =>
      fetch(`${first.url}/api/fridge`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: `关机测试${i}`, quantity: 1, unit: '个' }),
      }).then(
        (r) => {
          firstAnswered();
          return { i, status: r.status as number | 'socket error' };
        },
        () => ({ i, status: 'socket error' as const }),
      ),
    );
    await oneAnswered;
    const exitCode = first.stop();
    const answers = await Promise.all(writes);
    for (const s of opened) await s.ended;
    expect(await exitCode).toBe(0);

    // A write that reached the server was answered (201, or 503 once it stopped accepting); a
    // connection refused after the listener closed is a socket error — never for a committed write.
    expect(answers.every((a) => [201, 503, 'socket error'].includes(a.status))).toBe(true);
    expect(answers.filter((a) => a.status === 201).length, JSON.stringify(answers)).toBeGreaterThan(1);

    // Every stream ended with a done: the quick ones with their own, the slow ones interrupted.
    const doneOf = (s: (typeof opened)[number]) =>
      s.events.find((e) => e.type === 'done') ??
      (s.others.find((o) => o.event === 'done')?.data as Record<string, unknown> | undefined);
    for (const s of opened) expect(doneOf(s), `stream ${s.i} ended without a done`).toBeDefined();
    const cut = opened.filter((s) => s.others.some((o) => o.event === 'done'));
    expect(cut.length).toBe(STREAMS / 2);
    for (const s of cut) {
      expect(s.i % 2).toBe(1);
      expect(doneOf(s)).toMatchObject({ status: 'stopped', stopReason: 'interrupted', resumable: true });
    }
    for (const s of opened.filter((s) => s.i % 2 === 0))
      expect(s.events.at(-1)).toMatchObject({ type: 'done', status: 'success' });

    // The restart: the model answers now; what was committed is there, the cut runs resume.
    model.release();
    const second = await startKitchenProcess(env);
    const resumedLine = new RegExp(`runs after the restart: ${STREAMS / 2} resumed`);
    for (let waited = 0; !resumedLine.test(second.output()) && waited < 5_000; waited += 50)
      await new Promise((r) => setTimeout(r, 50));
    expect(second.output()).toMatch(resumedLine);
    const cookie2 = await login(second.url);
    const fridge = (await (
      await fetch(`${second.url}/api/fridge`, { headers: { cookie: cookie2 } })
    ).json()) as {
      items: { name: string }[];
    };
    const stored = new Set(fridge.items.map((item) => item.name).filter((n) => n.startsWith('关机测试')));
    for (const a of answers)
      expect(stored.has(`关机测试${a.i}`), `write ${a.i} answered ${a.status}`).toBe(a.status === 201);
    for (const s of cut) {
      const deadline = Date.now() + 15_000;
      let status = 'running';
      while (status === 'running' && Date.now() < deadline) {
        const run = (await (
          await fetch(`${second.url}/v1/runs/${s.runId}`, { headers: { cookie: cookie2 } })
        ).json()) as {
          status: string;
        };
        status = run.status;
        if (status === 'running') await new Promise((r) => setTimeout(r, 100));
      }
      expect(status, `run ${s.runId}`).toBe('success');
    }
    expect(await second.stop()).toBe(0);
  }, 120_000);
});
