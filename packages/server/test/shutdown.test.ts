import { afterEach, describe, expect, it } from 'vitest';
import { memoryRunStore, type Model, type RunStore } from 'reins';
import { as, final, openSse, postJson, start, type SseFrame, type Started } from './helpers.js';

// Issue 16.12: a graceful shutdown of the embedded server. New requests are refused; what is
// under way gets the grace period; every stream still open ends with a final `done`
// (`interrupted`, `resumable` with a run store) and a stored run goes on after the restart.

let running: Started[] = [];
afterEach(async () => {
  for (const s of running) await s.close();
  running = [];
});

/**
 * Answers after the delay the user's input names (`wait 300`), or never (`hang`) unless
 * `release()` was called — then at once. Cancellable.
 */
function inputTimedModel() {
  let released = false;
  /** Every input the model was called with: a run is admitted and waiting once its input is here. */
  const calls: string[] = [];
  const model: Model = {
    name: 'timed',
    call: (request) =>
      new Promise((resolve) => {
        const input = request.messages.map((m) => String(m.content)).join(' ');
        calls.push(input);
        const ms = released ? 0 : /hang/.test(input) ? undefined : Number(/wait (\d+)/.exec(input)?.[1] ?? 0);
        const answer = () =>
          resolve({
            ok: true,
            text: final(`answered: ${input.length}`),
            usage: { inputTokens: 2, outputTokens: 3 },
          });
        const timer = ms === undefined ? undefined : setTimeout(answer, ms);
        request.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve({ ok: false, error: { code: 'CANCELLED', message: 'cancelled' } });
        });
      }),
  };
  return { model, calls, release: () => (released = true) };
}

async function server(model: Model, store: RunStore | undefined, drainGraceMs = 800): Promise<Started> {
  const s = await start({
    agents: { a: { model } },
    limits: { drainGraceMs },
    ...(store === undefined ? {} : { durable: { store } }),
  });
  running.push(s);
  return s;
}

const lastFrame = (frames: readonly SseFrame[]): SseFrame | undefined =>
  frames.filter((f) => f.data !== undefined).at(-1);

describe('drain() without the shared mode', () => {
  it('refuses new requests, lets a quick run finish, ends a slow one with a resumable done that the restart honours', async () => {
    const store = memoryRunStore();
    const timed = inputTimedModel();
    const s = await server(timed.model, store);
    const quick = await openSse(`${s.url}/v1/runs`, {
      body: { agent: 'a', input: 'wait 300' },
      headers: as('alice'),
    });
    const slow = await openSse(`${s.url}/v1/runs`, {
      body: { agent: 'a', input: 'hang' },
      headers: as('alice'),
    });
    await slow.waitFor((f) => f.event === 'start');
    const slowRunId = String(slow.response.headers['x-run-id']);
    const jsonWait = postJson(`${s.url}/v1/runs`, { agent: 'a', input: 'hang too' }, as('alice'));
    // The JSON run is admitted and waiting (its model call made), however slow the machine.
    await expect.poll(() => timed.calls.some((c) => c.includes('hang too'))).toBe(true);

    const drained = s.server.drain();
    const refused = await fetch(`${s.url}/v1/agents`, { headers: as('alice') });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('connection')).toBe('close');
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('SERVICE_UNAVAILABLE');
    await drained;

    // The quick run finished inside the grace: its own `done`, with an id.
    await quick.ended;
    const quickDone = lastFrame(quick.frames);
    expect(quickDone?.event).toBe('done');
    expect(quickDone?.id).toBeDefined();
    expect(JSON.parse(quickDone?.data ?? '{}')).toMatchObject({ status: 'success' });

    // The slow one: a last `done` without an id, saying it stopped here and resumes.
    await slow.ended;
    const slowDone = lastFrame(slow.frames);
    expect(slowDone?.event).toBe('done');
    expect(slowDone?.id).toBeUndefined();
    const lastId = Number(slow.frames.filter((f) => f.id !== undefined).at(-1)?.id);
    expect(JSON.parse(slowDone?.data ?? '{}')).toMatchObject({
      type: 'done',
      runId: slowRunId,
      status: 'stopped',
      stopReason: 'interrupted',
      resumable: true,
      lastEventId: lastId,
    });

    // The JSON wait: 503 naming the run, not a reset.
    const json = await jsonWait;
    expect(json.status).toBe(503);
    expect(json.headers.get('retry-after')).toBe('1');
    expect(JSON.stringify(json.body)).toMatch(/resumes when the server is back/);

    // The restart on the same store resumes it (the model answers now) to its real end.
    await s.close();
    running = running.filter((r) => r !== s);
    timed.release();
    const again = await server(timed.model, store);
    const report = await again.server.recover();
    expect(report?.resumed).toBeGreaterThanOrEqual(1);
    const followed = await openSse(`${again.url}/v1/runs/${slowRunId}/events`, {
      method: 'GET',
      headers: { ...as('alice'), 'last-event-id': String(lastId) },
    });
    await followed.ended;
    expect(followed.events.at(-1)).toMatchObject({ type: 'done', status: 'success' });
    expect(followed.events[0]?.seq).toBe(lastId + 1);
  });

  it('without a run store the last done says the run cannot be resumed', async () => {
    const s = await server(inputTimedModel().model, undefined, 200);
    const slow = await openSse(`${s.url}/v1/runs`, {
      body: { agent: 'a', input: 'hang' },
      headers: as('bob'),
    });
    await slow.waitFor((f) => f.event === 'start');
    await s.server.drain();
    await slow.ended;
    expect(JSON.parse(lastFrame(slow.frames)?.data ?? '{}')).toMatchObject({
      stopReason: 'interrupted',
      resumable: false,
    });
  });

  it('a request being answered when the drain starts gets its answer, not a reset', async () => {
    const timed = inputTimedModel();
    const s = await server(timed.model, memoryRunStore(), 3_000);
    const answer = postJson(`${s.url}/v1/runs`, { agent: 'a', input: 'wait 400' }, as('carol'));
    await expect.poll(() => timed.calls.some((c) => c.includes('wait 400'))).toBe(true); // being answered
    const startedAt = Date.now();
    await s.server.drain();
    const { status, body } = await answer;
    expect(status).toBe(200);
    expect(body).toMatchObject({ record: { status: 'success' } });
    // The drain waited for it, and no longer than it needed to.
    expect(Date.now() - startedAt).toBeLessThan(2_500);
  });
});
