import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryRunStore, type Model, type RunStore } from 'reins';
import { scriptModel } from 'reins/testing';
import type { SharedRole } from '../src/index.js';
import { as, final, openSse, orderTool, start, type Started } from './helpers.js';

const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

const started: Started[] = [];
afterEach(async () => {
  for (const s of started.splice(0).reverse()) await s.close().catch(() => undefined);
});

type Cluster = { store: RunStore; prefix: string; model: Model; placed: string[] };

function cluster(replies: Parameters<typeof scriptModel>[0]): Cluster {
  return {
    store: memoryRunStore(),
    prefix: `reins-test-${randomUUID().slice(0, 8)}:`,
    model: scriptModel(replies),
    placed: [] as string[],
  };
}

async function instance(c: Cluster, role: SharedRole, extra: { lockMs?: number } = {}): Promise<Started> {
  const one = await start({
    agents: { shop: { model: c.model, tools: [orderTool(c.placed)] } },
    durable: { store: c.store },
    redisPrefix: c.prefix,
    shared: { role, redisUrl: REDIS_URL, lockMs: 2_000, ...extra },
  });
  started.push(one);
  await one.server.recover();
  return one;
}

async function storedStatus(store: RunStore, runId: string, wanted: string, ms = 5_000) {
  const deadline = Date.now() + ms;
  let status = (await store.load(runId))?.run.status;
  while (status !== wanted && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    status = (await store.load(runId))?.run.status;
  }
  return status;
}

describe('review: shared-mode takeover', () => {
  // Contract: RunWorker.close() "Closes at once: held runs are left where their logs say (the
  // stalled-job check hands them over)" (packages/server/src/shared/run-worker.ts:124), and
  // create-server.ts:340-344 ("Nothing is cancelled"); docs/scaling.md "Failures": another
  // worker rebuilds the run from its log and goes on. close() releases the held run first, so
  // #hold returns 'stopped' and BullMQ *completes* the job: the run stays `running` in the
  // store with no job left, and nobody ever takes it over.
  it('a worker closed while holding a run leaves it to another worker, which finishes it', async () => {
    const c = cluster([
      { text: final('first try'), delayMs: 1_500 },
      { text: final('finished by the other worker'), delayMs: 100 },
    ]);
    const a = await instance(c, 'api');
    const first = await instance(c, 'worker', { lockMs: 1_000 });
    const client = await openSse(`${a.url}/v1/runs`, {
      body: { agent: 'shop', input: 'slowly' },
      headers: as('alice'),
    });
    await client.waitFor((f) => f.event === 'start');
    const runId = client.events[0]?.runId ?? '';
    await instance(c, 'worker', { lockMs: 1_000 });
    await first.close(); // the process goes away while it holds the run
    expect(await storedStatus(c.store, runId, 'success', 10_000)).toBe('success');
    client.destroy();
  }, 20_000);
});
