// The scale-out bench's parts against the sources (no timings asserted): its agents run in
// the shared mode across instances — a run, a cancel and an approval reaching another
// instance than the stream's — and its client measures what it claims; the fan-out probe
// delivers every message in order on both transports, and NOTIFY refuses a 9 KB payload.
// Needs this machine's PostgreSQL and Redis, as the server's and the kitchen's tests do.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveRoundTrip, cancelRoundTrip, keepAlive, sseRun } from './client.js';
import { prepareStorage } from './cluster.js';
import { measureFanout, payloadCaps } from './fanout.js';
import { startInstance } from './instance.js';

type Instance = Awaited<ReturnType<typeof startInstance>>;

describe('scale-out bench', () => {
  let storage: Awaited<ReturnType<typeof prepareStorage>>;
  const instances: Instance[] = [];
  const httpAgent = keepAlive();
  let a: Instance;
  let b: Instance;

  beforeAll(async () => {
    storage = await prepareStorage();
    const config = { schema: storage.schema, prefix: storage.prefix, stepMs: 50, logLevel: 'error' };
    a = await startInstance({ ...config, role: 'api' });
    b = await startInstance({ ...config, role: 'api' });
    instances.push(a, b, await startInstance({ ...config, role: 'worker', concurrency: 5 }));
  }, 20_000);

  afterAll(async () => {
    httpAgent.destroy();
    for (const instance of instances.reverse()) await instance.close();
    await storage?.dispose();
  });

  it('runs the 2-step agent on a worker and times every event it streams', async () => {
    const runs = await Promise.all(
      [a, b, a, b].map((api, i) =>
        sseRun(api.url, { agent: 'bench', input: `q ${i}`, user: `u${i}`, httpAgent }),
      ),
    );
    for (const run of runs) {
      expect(run.ok).toBe(true);
      expect(run.events.map((e) => (e.type === 'step' ? `step:${e.phase}` : e.type))).toEqual([
        'start',
        'step:reason',
        'step:act',
        'step:observe',
        'step:reason',
        'message',
        'done',
      ]);
      expect(run.addedMs).toHaveLength(7);
      // Same clock: an event cannot arrive before it happened (1 ms of rounding allowed).
      for (const added of run.addedMs) expect(added).toBeGreaterThanOrEqual(-1);
      expect(run.workerMs).toBeGreaterThanOrEqual(2 * 50);
      expect(run.durationMs).toBeGreaterThanOrEqual(run.workerMs);
      expect(run.queuedMs).toBeGreaterThanOrEqual(0);
    }
    const stored = await storage.counts();
    expect(stored.runs).toBeGreaterThanOrEqual(4);
    expect(stored.events).toBeGreaterThanOrEqual(4 * 7);
  });

  it('cancels on B a run streamed from A mid model step, and approves on B a run paused on A', async () => {
    const cancel = await cancelRoundTrip(a.url, b.url, 'canceller', httpAgent);
    expect(cancel).toMatchObject({ ok: true });
    expect(cancel.responseMs).toBeLessThan(10_000); // not the 30 s step: the abort reached the model
    for (const form of ['json', 'sse'] as const) {
      const approve = await approveRoundTrip(a.url, b.url, `approver-${form}`, form, httpAgent);
      expect(approve).toMatchObject({ ok: true });
      expect(approve.headersMs).toBeLessThanOrEqual(approve.totalMs ?? Infinity);
    }
  });

  it('fans out every message in order over Redis and NOTIFY; NOTIFY refuses 9 KB', async () => {
    for (const transport of ['redis', 'postgres'] as const) {
      const r = await measureFanout({ transport, subscribers: 2, events: 100, rate: 1_000, bytes: 1_024 });
      expect(r).toMatchObject({ received: 200, expected: 200, outOfOrder: 0, publishErrors: 0 });
    }
    const caps = await payloadCaps([9_216]);
    expect(caps.find((c) => c.transport === 'redis')?.outcome).toMatch(/^delivered/);
    expect(caps.find((c) => c.transport === 'postgres')?.outcome).toMatch(/refused: payload string too long/);
  });
});
