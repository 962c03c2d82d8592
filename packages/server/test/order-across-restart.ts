import { memoryRunStore } from 'reins';
import { scriptModel } from 'reins/testing';
import type { Tracing } from '../src/index.js';
import { act, as, final, orderTool, postJson, type start, type Started } from './helpers.js';

type Body = Awaited<ReturnType<typeof postJson>>;

/**
 * The durable-run scenario of the tracing tests: alice's `shop` run pauses for approval of
 * `place_order`; that process stops (its tracing shut down, so its spans are sent); a second
 * process with its own tracing and the same store rebuilds the run, `meanwhile` looks at it, and
 * alice approves. `server` starts a process (the caller closes it at the end of the test too).
 */
export async function orderAcrossRestart(options: {
  readonly server: (options: Parameters<typeof start>[0]) => Promise<Started>;
  readonly tracing: () => Promise<Tracing>;
  /** Sent with the first POST (a caller's `traceparent`). */
  readonly headers?: Record<string, string>;
  readonly meanwhile?: (second: Started, runId: string) => Promise<void>;
}): Promise<{
  readonly paused: Body;
  readonly record: { run_id: string; status: string; trace_id?: string };
  readonly approved: Body;
  readonly placed: readonly string[];
}> {
  const store = memoryRunStore();
  const placed: string[] = [];
  const script = [act('place_order', { item: 'milk' }), final('ordered milk')];
  const boot = async (t: Tracing, steps: string[]) => {
    const s = await options.server({
      agents: { shop: { model: scriptModel(steps), tools: [orderTool(placed)] } },
      durable: { store },
      ...t.serverOptions,
    });
    await s.server.recover();
    return s;
  };
  const first = await options.tracing();
  const one = await boot(first, script);
  const paused = await postJson(
    `${one.url}/v1/runs`,
    { agent: 'shop', input: 'order milk' },
    { ...as('alice'), ...options.headers },
  );
  const record = paused.body.record as { run_id: string; status: string; trace_id?: string };
  await one.close();
  await first.shutdown();

  // The next process: its own SDK, the run rebuilt from the store.
  const second = await options.tracing();
  const two = await boot(second, script.slice(1));
  await options.meanwhile?.(two, record.run_id);
  const approval = (paused.body.events as { type: string; actId?: string; inputHash?: string }[]).find(
    (e) => e.type === 'approval',
  );
  const approved = await postJson(
    `${two.url}/v1/runs/${record.run_id}/approve`,
    { actId: approval?.actId, inputHash: approval?.inputHash, approve: true },
    as('alice'),
  );
  await two.close();
  await second.shutdown();
  return { paused, record, approved, placed };
}
