import { afterEach, describe, expect, it } from 'vitest';
import { DependencyUnavailableError, memoryRunStore, type Model, type RunStore } from 'reins';
import { bearerAuth, final, start, writeAs, type Started } from './helpers.js';

// Issue 16.13, the server's side: when the run store's database (or the authenticator's) cannot
// answer, every route answers 503 SERVICE_UNAVAILABLE with Retry-After — never a 500 — and a run
// whose row cannot be stored never starts (no model call, its concurrency slot given back).
// `/health` answers 503 `unavailable` while a required dependency is down.

let running: Started | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

const outage = (): DependencyUnavailableError =>
  new DependencyUnavailableError(
    'database',
    'the database is unavailable (connection refused); try again shortly',
  );

/** The in-memory store, switchable to an outage (`down`) or to a bug (`broken`). */
function switchableStore() {
  const inner = memoryRunStore();
  const state = { mode: 'up' as 'up' | 'down' | 'broken' };
  const guard =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      if (state.mode === 'down') return Promise.reject(outage());
      if (state.mode === 'broken') return Promise.reject(new TypeError('store bug'));
      return call(...args);
    };
  const store: RunStore = {
    create: guard(inner.create),
    append: guard(inner.append),
    load: guard(inner.load),
    unfinished: guard(inner.unfinished),
    sweep: guard(inner.sweep),
    deleteConversation: guard(inner.deleteConversation),
  };
  return { store, state };
}

function countingModel() {
  let calls = 0;
  const model: Model = {
    name: 'counting',
    call: () => {
      calls++;
      return Promise.resolve({ ok: true, text: final('answer'), usage: { inputTokens: 1, outputTokens: 1 } });
    },
  };
  return { model, calls: () => calls };
}

const post = (url: string, input: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/v1/runs`, {
    method: 'POST',
    headers: { ...writeAs('alice'), ...headers },
    body: JSON.stringify({ agent: 'a', input }),
  });

async function expectUnavailable(response: Response): Promise<void> {
  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe('2');
  expect(await response.json()).toEqual({
    error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/database is unavailable/) },
  });
}

describe('a dependency that cannot answer is a 503, not a 500', () => {
  it('the run store cannot store the run: 503 + Retry-After, the run never starts, its slot is free again', async () => {
    const { store, state } = switchableStore();
    const { model, calls } = countingModel();
    running = await start({
      agents: { a: { model } },
      durable: { store },
      quota: { maxConcurrentRuns: 1, ratePerWindow: 100, userRunsPerMinute: 100 },
    });
    state.mode = 'down';
    await expectUnavailable(await post(running.url, 'one'));
    await expectUnavailable(await post(running.url, 'two', { accept: 'text/event-stream' }));
    await expectUnavailable(await fetch(`${running.url}/v1/runs/some-run`, { headers: writeAs('alice') }));
    expect(calls()).toBe(0); // nothing ran unrecorded
    expect(running.server.runs.size).toEqual({ live: 0, paused: 0, finished: 0 });

    state.mode = 'up'; // back: the next run starts (a slot held by a failed create would give 429)
    const answered = await post(running.url, 'three');
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({ record: { status: 'success', final_answer: 'answer' } });
    expect(calls()).toBe(1);
  });

  it('the authenticator’s database is down: 503 on every /v1 route', async () => {
    let down = true;
    running = await start({
      agents: { a: { model: countingModel().model } },
      authenticate: (request) => (down ? Promise.reject(outage()) : Promise.resolve(bearerAuth(request))),
    });
    await expectUnavailable(await fetch(`${running.url}/v1/agents`, { headers: writeAs('alice') }));
    await expectUnavailable(await post(running.url, 'hello'));
    down = false;
    expect((await fetch(`${running.url}/v1/agents`, { headers: writeAs('alice') })).status).toBe(200);
  });

  it('a bug in the store stays a 500 INTERNAL (no detail, no Retry-After)', async () => {
    const { store, state } = switchableStore();
    running = await start({ agents: { a: { model: countingModel().model } }, durable: { store } });
    state.mode = 'broken';
    const response = await post(running.url, 'hello');
    expect(response.status).toBe(500);
    expect(response.headers.get('retry-after')).toBeNull();
    expect(await response.json()).toEqual({ error: { code: 'INTERNAL', message: 'internal error' } });
  });
});

describe('/health names the dependency that is down', () => {
  type Report = {
    status: string;
    down?: string[];
    checks: Record<string, { status: string; detail?: string }>;
  };
  const health = async (s: Started) => {
    const response = await fetch(`${s.url}/health`);
    return { status: response.status, report: (await response.json()) as Report };
  };

  it('a required check down: 503 `unavailable`, required ones listed first; an optional one: 200 `degraded`', async () => {
    const { store, state } = switchableStore();
    const deps = { db: true, search: true };
    running = await start({
      agents: { a: { model: countingModel().model } },
      durable: { store },
      healthChecks: {
        db: () => {
          if (!deps.db) throw outage();
        },
        search: () => (deps.search ? { status: 'up' } : { status: 'down', detail: 'index offline' }),
      },
      requiredHealthChecks: ['db'],
    });
    expect(await health(running)).toMatchObject({ status: 200, report: { status: 'ok' } });
    expect((await health(running)).report.down).toBeUndefined();

    deps.search = false;
    expect(await health(running)).toMatchObject({
      status: 200,
      report: { status: 'degraded', down: ['search'] },
    });

    deps.db = false;
    const both = await health(running);
    expect(both).toMatchObject({ status: 503, report: { status: 'unavailable', down: ['db', 'search'] } });
    expect(both.report.checks['db']).toMatchObject({
      status: 'down',
      detail: expect.stringMatching(/database is unavailable/),
    });

    deps.db = true;
    deps.search = true;
    state.mode = 'down'; // the durable run store is required by itself
    expect(await health(running)).toMatchObject({
      status: 503,
      report: { status: 'unavailable', down: ['store'] },
    });
    state.mode = 'up';
    expect(await health(running)).toMatchObject({ status: 200, report: { status: 'ok' } });
  });

  it('a check that hangs is down after the health deadline; /health itself answers', async () => {
    running = await start({
      agents: { a: { model: countingModel().model } },
      healthChecks: { db: () => new Promise<void>(() => undefined) },
      requiredHealthChecks: ['db'],
      limits: { healthDeadlineMs: 200 },
    });
    const { status, report } = await health(running);
    expect(status).toBe(503);
    expect(report.checks['db']).toMatchObject({ status: 'down', detail: 'no answer within 200 ms' });
  });
});
