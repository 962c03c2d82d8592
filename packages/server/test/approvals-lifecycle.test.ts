// Approvals across a run's life: cancelled while paused, its events replayed across the pause, its metrics.
import { describe, expect, it } from 'vitest';
import { as, openSse, postJson, shape, sleep } from './helpers.js';
import {
  answerOf,
  approveUrl,
  closeAfterEach,
  getRecord,
  orderAgent,
  pausedRun,
  sample,
  startWith,
} from './approval-fixtures.js';

closeAfterEach();

describe('cancelling a paused run', () => {
  it('POST /cancel ends it cancelled; the tool never runs', async () => {
    const { model, placed, agent } = orderAgent();
    const { url } = await startWith(agent);
    const { runId, approval } = await pausedRun(url);
    const r = await postJson(`${url}/v1/runs/${runId}/cancel`, {}, as('alice'));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ run_id: runId, status: 'cancelled' });
    expect((await getRecord(url, runId)).status).toBe('cancelled');
    const late = await postJson(approveUrl(url, runId), answerOf(approval), as('alice'));
    expect(late.status).toBe(404);
    await sleep(50);
    expect(placed).toEqual([]);
    expect(model.calls).toHaveLength(1);
  });

  it('a stop message cancels paused runs too', async () => {
    const { placed, agent } = orderAgent();
    const { url } = await startWith(agent);
    const { runId } = await pausedRun(url);
    const r = await postJson(`${url}/v1/runs`, { agent: 'shop', input: '算了' }, as('alice'));
    expect(r.body).toMatchObject({ stopped: true, cancelled: [{ run_id: runId, status: 'cancelled' }] });
    expect((await getRecord(url, runId)).status).toBe('cancelled');
    expect(placed).toEqual([]);
  });
});

describe('GET /v1/runs/:id/events across a pause', () => {
  it('replays to the pause while paused; after the answer, Last-Event-ID resumes across it', async () => {
    const { agent } = orderAgent();
    const { url } = await startWith(agent);
    const { runId, approval } = await pausedRun(url);
    const follow = async (lastEventId?: string) => {
      const client = await openSse(`${url}/v1/runs/${runId}/events`, {
        method: 'GET',
        headers: { ...as('alice'), ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) },
      });
      await client.ended;
      return client.events;
    };
    expect(shape(await follow())).toEqual(['start', 'step:reason', 'step:act', 'approval', 'done']);
    expect(await follow('4')).toEqual([]); // nothing after the pause yet: the stream ends at once
    expect((await getRecord(url, runId)).status).toBe('awaiting_approval'); // and cancels nothing

    await postJson(approveUrl(url, runId), answerOf(approval), as('alice'));
    const across = await follow('2');
    expect(shape(across)).toEqual([
      'approval',
      'done',
      'resume',
      'step:observe',
      'step:reason',
      'message',
      'done',
    ]);
    expect(across.map((e) => e.seq)).toEqual([3, 4, 5, 6, 7, 8, 9]);
    expect(across.at(-1)).toMatchObject({ status: 'success' });
    expect((await follow('4')).map((e) => e.seq)).toEqual([5, 6, 7, 8, 9]);
    expect(shape(await follow())).toHaveLength(10);
  });
});

describe('metrics and status of paused runs', () => {
  it('a pause is counted as a pause, not as a finished run; the end is counted once', async () => {
    const { agent } = orderAgent();
    const { url } = await startWith(agent);
    const { runId, approval } = await pausedRun(url);
    const metrics = async () => (await fetch(`${url}/metrics`)).text();
    const pauses = 'reins_run_pauses_total{agent="shop",status="awaiting_approval"}';
    await expect.poll(async () => sample(await metrics(), pauses)).toBe(1); // the watcher saw the pause
    let text = await metrics();
    expect(sample(text, 'reins_run_pauses_total{agent="shop",status="awaiting_approval"}')).toBe(1);
    expect(text).not.toContain('reins_runs_total{agent="shop",status="awaiting_approval"}');
    expect(sample(text, 'reins_runs_paused')).toBe(1);
    expect(sample(text, 'reins_runs_in_flight')).toBe(0);
    const health = (await (await fetch(`${url}/health`)).json()) as {
      checks: { store: { runs: Record<string, number> } };
    };
    expect(health.checks.store.runs).toEqual({ live: 1, paused: 1, finished: 0 });

    await postJson(approveUrl(url, runId), answerOf(approval), as('alice'));
    const ended = 'reins_runs_total{agent="shop",status="success"}';
    await expect.poll(async () => sample(await metrics(), ended)).toBe(1);
    text = await metrics();
    expect(sample(text, 'reins_runs_total{agent="shop",status="success"}')).toBe(1);
    expect(sample(text, 'reins_run_pauses_total{agent="shop",status="awaiting_approval"}')).toBe(1);
    expect(sample(text, 'reins_approvals_total{agent="shop",tool="place_order",outcome="approved"}')).toBe(1);
    expect(sample(text, 'reins_steps_total{agent="shop",action="place_order",status="ok"}')).toBe(1);
    expect(sample(text, 'reins_runs_paused')).toBe(0);
    expect(sample(text, 'reins_runs_in_flight')).toBe(0);
    expect((await getRecord(url, runId)).status).toBe('success');
    const after = (await (await fetch(`${url}/health`)).json()) as typeof health;
    expect(after.checks.store.runs).toEqual({ live: 0, paused: 0, finished: 1 });
  });
});
