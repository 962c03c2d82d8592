import { randomUUID } from 'node:crypto';
import { afterEach } from 'vitest';
import { memoryRunStore, type Model, type RunStore } from 'reins';
import { scriptModel } from 'reins/testing';
import type { SharedRole } from '../src/index.js';
import { orderTool, start, type Started } from './helpers.js';

// The shared mode on this machine's Redis (CI starts it; a missing Redis fails these tests).
export const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/** What every instance of one test shares: the store, the Redis prefix, the model, the orders placed. */
export interface Cluster {
  readonly store: RunStore;
  readonly prefix: string;
  readonly model: Model;
  readonly placed: string[];
}

export function cluster(replies: Parameters<typeof scriptModel>[0]): Cluster {
  return {
    store: memoryRunStore(),
    prefix: `reins-test-${randomUUID().slice(0, 8)}:`,
    model: scriptModel(replies),
    placed: [],
  };
}

export interface InstanceExtra {
  readonly lockMs?: number;
  readonly drainGraceMs?: number;
  readonly concurrency?: number;
  readonly replyTimeoutMs?: number;
  readonly approvalTtlMs?: number;
  readonly quota?: Record<string, number>;
}

/**
 * The instances a test file starts, closed after each test (`quietClose`: a close that fails —
 * a test took Redis away — is ignored). `instance` starts one of a cluster, recovered.
 */
export function sharedInstances(options: { quietClose?: boolean } = {}) {
  const started: Started[] = [];
  afterEach(async () => {
    for (const s of started.splice(0).reverse()) {
      if (options.quietClose === true) await s.close().catch(() => undefined);
      else await s.close();
    }
  });
  async function instance(c: Cluster, role: SharedRole, extra: InstanceExtra = {}): Promise<Started> {
    const { approvalTtlMs, quota, ...shared } = extra;
    const one = await start({
      agents: {
        shop: {
          model: c.model,
          tools: [orderTool(c.placed)],
          ...(approvalTtlMs === undefined ? {} : { limits: { approvalTtlMs } }),
        },
      },
      durable: { store: c.store },
      redisPrefix: c.prefix,
      ...(quota === undefined ? {} : { quota }),
      shared: { role, redisUrl: REDIS_URL, lockMs: shared.lockMs ?? 2_000, ...shared },
    });
    started.push(one);
    await one.server.recover();
    return one;
  }
  return { started, instance };
}

/** The run's stored status once it is `wanted`, or the last one read after `ms`. */
export async function storedStatus(store: RunStore, runId: string, wanted: string, ms = 5_000) {
  const deadline = Date.now() + ms;
  let status = (await store.load(runId))?.run.status;
  while (status !== wanted && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    status = (await store.load(runId))?.run.status;
  }
  return status;
}
