import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryRunStore, type Model, type RunStore } from 'reins';
import { bearerAuth, start, type Started } from './helpers.js';

// Issue 16.11: a run whose client left before it started is not run for nobody.

let running: Started | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** A model that counts its calls and answers after `ms` (or when cancelled). */
function countingModel(ms: number) {
  let calls = 0;
  const model: Model = {
    name: 'counting',
    call: (request) =>
      new Promise((resolve) => {
        calls++;
        const timer = setTimeout(
          () =>
            resolve({
              ok: true,
              text: JSON.stringify({ thought: 't', final: 'answer' }),
              usage: { inputTokens: 1, outputTokens: 1 },
            }),
          ms,
        );
        request.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve({ ok: false, error: { code: 'CANCELLED', message: 'cancelled' } });
        });
      }),
  };
  return { model, calls: () => calls };
}

/** Sends a JSON run request on a raw socket and hangs up after `leaveAfterMs`, before any answer. */
function postAndLeave(url: string, leaveAfterMs: number): Promise<void> {
  const { hostname, port } = new URL(url);
  const body = JSON.stringify({ agent: 'a', input: 'hello' });
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST /v1/runs HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer user:alice\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      setTimeout(() => {
        socket.destroy();
        resolve();
      }, leaveAfterMs);
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function abandoned(s: Started): Promise<Record<string, number>> {
  const text = await (await fetch(`${s.url}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const [, stage, n] of text.matchAll(/^reins_abandoned_requests_total\{stage="(\w+)"\} (\d+)/gm))
    counts[stage as string] = Number(n);
  return counts;
}

describe('abandoned requests', () => {
  it('a client that leaves during admission: the run is never started, stored or charged', async () => {
    const { model, calls } = countingModel(10);
    const store = memoryRunStore();
    running = await start({
      agents: { a: { model } },
      durable: { store },
      // Admission is slow (authentication here): the client is gone before it ends.
      authenticate: async (request) => (await sleep(150), bearerAuth(request)),
    });
    await postAndLeave(running.url, 30);
    await sleep(400);
    expect(calls()).toBe(0);
    expect(await store.unfinished()).toEqual([]);
    expect(running.server.runs.size).toEqual({ live: 0, paused: 0, finished: 0 });
    expect(await abandoned(running)).toEqual({ before_start: 1 });
    expect(await running.server.quota.usage('alice')).toEqual({ used: 0, held: 0 });
  });

  it('a client that leaves while its run is being created: the run is cancelled at once', async () => {
    const { model, calls } = countingModel(5_000);
    const inner = memoryRunStore();
    let created: (runId: string) => void = () => undefined;
    const createdOnce = new Promise<string>((resolve) => (created = resolve));
    const store: RunStore = {
      ...inner,
      create: async (run) => {
        await sleep(150); // a slow database: the client leaves meanwhile
        await inner.create(run);
        created(run.runId);
      },
      append: (runId, events) => inner.append(runId, events),
      load: (runId) => inner.load(runId),
    };
    running = await start({ agents: { a: { model } }, durable: { store } });
    await postAndLeave(running.url, 30);
    const runId = await createdOnce;
    await expect
      .poll(async () => (await inner.load(runId))?.run.status, { timeout: 3_000 })
      .toBe('cancelled');
    expect(calls()).toBeLessThanOrEqual(1); // at most the call that was starting; it was cancelled
    expect(await abandoned(running)).toEqual({ while_starting: 1 });
  });
});
