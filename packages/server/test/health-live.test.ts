import { afterEach, describe, expect, it, vi } from 'vitest';
import { memoryRunStore, scriptModel, type RunStore } from 'reins';
import { HealthMonitor, memoryLimitStore, type HealthReport } from '@reins/server';
import { as, final, postJson, start, type Started } from './helpers.js';

// Issue 17.2: health that answers. Before, `/health` ran every check inside the request and
// waited for the slowest (up to the 1 s deadline each time), so a busy dependency made the
// readiness probe slow, and there was no liveness answer that touched nothing. Now the checks
// run in the background (one call per check at a time) and `/health` answers from their
// results with each one's age; `/health/live` answers from memory, draining too.

let running: Started | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await running?.close();
  running = undefined;
});

const never = (): Promise<never> => new Promise<never>(() => undefined);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const agents = { a: { model: scriptModel([final('hi')]) } };

async function timed(url: string): Promise<{ status: number; body: HealthReport; ms: number }> {
  const started = performance.now();
  const response = await fetch(url);
  const body = (await response.json()) as HealthReport;
  return { status: response.status, body, ms: performance.now() - started };
}

/** A check that answers `up` for its first `answers` calls, then never again; counts its calls. */
function thenHangs(answers = 1) {
  let calls = 0;
  const check = () => (++calls <= answers ? Promise.resolve({ status: 'up' as const }) : never());
  return { check, calls: () => calls };
}

// First, before any request: no other timer (a kept-alive connection's) is counted.
describe('HealthMonitor', () => {
  it('holds no timer after stop, even with a call still under way', async () => {
    vi.useFakeTimers();
    let calls = 0;
    const hung = () => {
      calls++;
      return never();
    };
    const before = vi.getTimerCount();
    const monitor = new HealthMonitor({
      checks: () => new Map([['hung', hung]]),
      intervalMs: 1_000,
      deadlineMs: 60_000,
    });
    monitor.start();
    await vi.advanceTimersByTimeAsync(1_000); // the first background call starts, with its deadline
    expect(calls).toBe(1);
    expect(vi.getTimerCount()).toBe(before + 2); // the interval, and the call's deadline
    monitor.stop();
    expect(vi.getTimerCount()).toBe(before);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls).toBe(1);
    const report = monitor.report(0);
    await vi.advanceTimersByTimeAsync(0);
    expect((await report).checks['hung']).toMatchObject({
      status: 'down',
      detail: expect.stringMatching(/no answer before the health monitor stopped$/),
    });
  });

  it('a result older than 3 intervals plus the deadline counts as down (required: unavailable)', async () => {
    let clock = 0; // the refresh could not run meanwhile (an event loop blocked for that long)
    let calls = 0;
    const db = async () => {
      calls++;
      await sleep(5); // over the network: never there in the request's own turn
      return { status: 'up' as const, call: calls };
    };
    const monitor = new HealthMonitor({
      checks: () => new Map([['db', db]]),
      required: new Set(['db']),
      intervalMs: 1_000,
      deadlineMs: 500,
      clock: () => clock,
    });
    expect(await monitor.report(0)).toMatchObject({ status: 'ok', checks: { db: { call: 1, ageMs: 0 } } });
    clock += 3_500;
    expect(await monitor.report(0)).toMatchObject({
      status: 'ok',
      checks: { db: { call: 1, ageMs: 3_500 } },
    });
    await sleep(20);
    clock += 3_501;
    const stale = await monitor.report(0);
    expect(stale).toMatchObject({ status: 'unavailable', down: ['db'] });
    expect(stale.checks['db']).toMatchObject({
      status: 'down',
      detail: 'stale: no result for 3501 ms (over 3500 ms); last: up',
      ageMs: 3_501,
    });
    await sleep(20); // the refresh it started has answered
    expect(await monitor.report(0)).toMatchObject({ status: 'ok', checks: { db: { call: 3, ageMs: 0 } } });
  });
});

describe('/health answers from the background results', () => {
  it('answers at once while a check hangs, and does not call the hung check again', async () => {
    const db = thenHangs(1);
    running = await start({
      agents,
      healthChecks: { db: db.check },
      limits: { healthIntervalMs: 40, healthDeadlineMs: 5_000 },
    });
    const first = await timed(`${running.url}/health`);
    expect(first.body.checks['db']).toMatchObject({ status: 'up' });
    await sleep(200); // several intervals: the second call is under way and hangs
    for (let i = 0; i < 3; i++) {
      const answer = await timed(`${running.url}/health`);
      expect(answer.status).toBe(200);
      // Before: each /health waited for the hung check's 5 s deadline.
      expect(answer.ms).toBeLessThan(2_500);
    }
    expect(db.calls()).toBe(2); // one call at a time: the hung one is not piled on
  });

  it('gives each result its age: it grows until the next result', async () => {
    let calls = 0;
    const slowish = async () => {
      calls++;
      await sleep(20); // an answer over the network: not there in the request's own turn
      return { status: 'up' as const, call: calls };
    };
    running = await start({
      agents,
      healthChecks: { search: slowish },
      limits: { healthIntervalMs: 60_000 },
    });
    const first = (await timed(`${running.url}/health`)).body.checks['search'];
    expect(first).toMatchObject({ status: 'up', call: 1 });
    await sleep(300);
    const second = (await timed(`${running.url}/health`)).body.checks['search'];
    expect(second).toMatchObject({ status: 'up', call: 1, checkedAt: first?.checkedAt });
    expect(second?.ageMs).toBeGreaterThanOrEqual(250);
    expect(second?.ageMs).toBeGreaterThan(first?.ageMs ?? Infinity);
    await sleep(50); // the refresh that request started has answered
    const third = (await timed(`${running.url}/health`)).body.checks['search'];
    expect(third).toMatchObject({ status: 'up', call: 2 });
    expect(third?.ageMs).toBeLessThan(second?.ageMs ?? 0);
  });

  it('runs the checks in the background, and stops on close', async () => {
    let calls = 0;
    running = await start({
      agents,
      healthChecks: { counted: () => void calls++ },
      limits: { healthIntervalMs: 20 },
    });
    await sleep(200);
    expect(calls).toBeGreaterThanOrEqual(2); // no request asked
    await running.close();
    running = undefined;
    const atClose = calls;
    await sleep(150);
    expect(calls).toBe(atClose);
  });
});

describe('/health/live and /metrics touch no dependency', () => {
  it('a run store busy with writes that succeed is up though a query would wait (busy is not down); idle, it is asked', async () => {
    // Under load a health query waits behind the runs' own writes (one writer on PGlite): the
    // store check went `down` (1 s deadline) and /health 503 while runs were being stored.
    const base = memoryRunStore();
    let appends = 0;
    const busy: RunStore = {
      ...base,
      unfinished: never, // what a query waiting behind a queue of writes looks like
      append: async (runId, events) => {
        // The first write goes through at once; each later one waits its turn for a second,
        // longer than a hung check's deadline, so a loaded machine still sees the busy window.
        if (appends++ > 0) await sleep(1_000);
        return base.append(runId, events);
      },
    };
    const s = await start({
      agents,
      durable: { store: busy },
      limits: { healthIntervalMs: 30, healthDeadlineMs: 300 },
    });
    running = s;
    const run = postJson(`${s.url}/v1/runs`, { agent: 'a', input: 'q' }, as('ann'));
    await expect
      .poll(async () => (await timed(`${s.url}/health`)).body.checks['store'], {
        timeout: 5_000,
        interval: 20,
      })
      .toMatchObject({ status: 'up', lastWriteMsAgo: expect.any(Number) });
    expect((await run).status).toBe(200);
    // Nothing being written: the check asks the store, which does not answer.
    await expect
      .poll(async () => (await timed(`${s.url}/health`)).body.checks['store']?.status, { timeout: 3_000 })
      .toBe('down');
  });

  it('answer at once while every dependency hangs; /health/live answers while draining too', async () => {
    const hung: RunStore = { ...memoryRunStore(), unfinished: never, load: never };
    running = await start({
      agents,
      durable: { store: hung },
      limitStore: { ...memoryLimitStore(), ping: never },
      healthChecks: { db: never, nutrition: never },
      limits: { healthDeadlineMs: 3_000 },
    });
    const live = await timed(`${running.url}/health/live`);
    expect(live).toMatchObject({ status: 200, body: { status: 'ok', draining: false } });
    expect(live.body.uptimeS).toEqual(expect.any(Number));
    expect(live.ms).toBeLessThan(1_500);
    const metricsStarted = performance.now();
    const metrics = await fetch(`${running.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('reins_runs_in_flight');
    expect(performance.now() - metricsStarted).toBeLessThan(1_500);

    // The first /health has no result yet: it waits for the checks once, up to their deadline.
    const health = await timed(`${running.url}/health`);
    expect(health.status).toBe(503);
    expect(health.body.checks['store']).toMatchObject({ status: 'down', detail: 'no answer within 3000 ms' });

    await running.server.drain(); // nothing under way: the gate closes at once
    const draining = await timed(`${running.url}/health/live`);
    expect(draining).toMatchObject({ status: 200, body: { status: 'ok', draining: true } });
    const refused = await fetch(`${running.url}/health`); // readiness: not ready while draining
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE' } });
  });
});
