import { randomUUID } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from 'reins';
import { RunBus } from '../src/shared/run-bus.js';
import { as, final, openSse } from './helpers.js';
import { cluster, sharedInstances } from './shared-cluster.js';

const { instance } = sharedInstances({ quietClose: true });
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanups.splice(0)) f();
});

/** A free TCP port on loopback. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as { port: number }).port;
  await new Promise((r) => probe.close(r));
  return port;
}

/** A TCP proxy to the real Redis, started later (Redis "down" until then). */
function redisProxy(port: number) {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  return {
    async up(): Promise<void> {
      server = createServer((client) => {
        const upstream = connect(6379, '127.0.0.1');
        sockets.add(client).add(upstream);
        client.pipe(upstream).pipe(client);
        const end = () => (client.destroy(), upstream.destroy());
        client.on('error', end).on('close', end);
        upstream.on('error', end).on('close', end);
      });
      await new Promise<void>((r) => server?.listen(port, '127.0.0.1', r));
    },
    close(): void {
      for (const s of sockets) s.destroy();
      server?.close();
    },
  };
}

describe('shared mode: followers across instances, and a failed subscribe (found in review)', () => {
  // Contract: docs/scaling.md "Failures" — Redis unreachable: "no run can be queued or followed
  // live ... until it is back"; run-bus.ts:62-64 "the subscriber re-subscribes by itself after a
  // reconnect". RunBus.#listen (run-bus.ts:136-141) caches the channel's `subscribe` promise
  // in #listeners *before* it settles and never removes it when it rejects: once a subscribe
  // failed while Redis was away, every later onEvents/onControl/onReplies of that channel
  // awaits the same rejected promise — the run can never be followed on this instance again
  // (and the dead listener stays in the map).
  it('a subscribe that failed while Redis was away works once Redis is back', async () => {
    const port = await freePort();
    const proxy = redisProxy(port);
    cleanups.push(() => proxy.close());
    const prefix = `reins-test-${randomUUID().slice(0, 8)}:`;
    const bus = new RunBus(`redis://127.0.0.1:${port}`, { prefix, instanceId: 'api-1' });
    cleanups.push(() => bus.close());
    await expect(bus.onEvents('run-1', () => undefined)).rejects.toThrow(); // Redis away
    await proxy.up(); // Redis back
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      if (
        await bus.ping().then(
          () => true,
          () => false,
        )
      )
        break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await bus.ping(); // both connections answer again
    // Control: a channel never tried before subscribes fine now (Redis is really back).
    await expect(bus.onEvents('run-2', () => undefined)).resolves.toBeTypeOf('function');
    const heard: RunEvent[] = [];
    const subscribed = await bus
      .onEvents('run-1', (e) => heard.push(e))
      .then(
        () => 'subscribed',
        (error: unknown) => `rejected: ${String(error)}`,
      );
    expect(subscribed).toBe('subscribed');
  }, 20_000);

  // Contract: README "Cancelling / Disconnect": the run is cancelled "when the last client (SSE
  // stream or JSON request) of a running run goes away" (packages/server/README.md:150-153);
  // docs/scaling.md: "Any API instance streams any run". In the shared mode each API instance
  // counts only its own clients (RunRegistry.attach, run-registry.ts:209-210), so a follower on
  // instance B leaving cancels (through reins:control) a run whose starting client on A still
  // streams it.
  it("a follower leaving instance B does not cancel a run that A's client still streams", async () => {
    const c = cluster([{ text: final('finished for A'), delayMs: 2_000 }]);
    const a = await instance(c, 'api');
    const b = await instance(c, 'api');
    await instance(c, 'worker');
    const client = await openSse(`${a.url}/v1/runs`, {
      body: { agent: 'shop', input: 'slowly' },
      headers: as('alice'),
    });
    await client.waitFor((f) => f.event === 'start');
    const runId = client.events[0]?.runId ?? '';
    const follower = await openSse(`${b.url}/v1/runs/${runId}/events`, {
      method: 'GET',
      headers: { ...as('alice'), 'last-event-id': '0' },
    });
    await new Promise((r) => setTimeout(r, 200));
    follower.destroy(); // a second tab on B closed; A's client is still reading
    await client.ended;
    expect(client.events.at(-1)).toMatchObject({ type: 'done', status: 'success' });
  }, 20_000);
});
