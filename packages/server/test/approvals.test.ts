import { describe, expect, it } from 'vitest';
import { type RunEvent, type RunRecord } from 'reins';
import { scriptModel } from 'reins/testing';
import { act, as, final, openSse, postJson, shape, sleep } from './helpers.js';
import {
  answerOf,
  approvalOf,
  approveUrl,
  closeAfterEach,
  current,
  getRecord,
  observeOf,
  orderAgent,
  orderTool,
  pausedRun,
  startWith,
} from './approval-fixtures.js';

closeAfterEach();

describe('a run that pauses for approval', () => {
  it('SSE: approval then done {awaiting_approval}, and the stream ends without cancelling the run', async () => {
    const { model, placed, agent } = orderAgent();
    const { url } = await startWith(agent);
    const { client, runId, approval } = await pausedRun(url);
    expect(shape(client.events)).toEqual(['start', 'step:reason', 'step:act', 'approval', 'done']);
    expect(client.events.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(client.events.at(-1)).toMatchObject({ type: 'done', status: 'awaiting_approval' });
    expect(approval).toMatchObject({ tool: 'place_order', input: { item: 'eggs', qty: 2 } });
    expect(approval.inputHash).toMatch(/^[0-9a-f]{64}$/);

    await sleep(100); // the stream has ended: a run mistaken for abandoned would be cancelled by now
    const record = await getRecord(url, runId);
    expect(record).toMatchObject({
      status: 'awaiting_approval',
      intent: 'approval',
      pending_approval: {
        act_id: approval.actId,
        tool: 'place_order',
        input: { item: 'eggs', qty: 2 },
        input_hash: approval.inputHash,
      },
    });
    expect(current.running?.server.runs.unfinished('alice').map((e) => e.runId)).toEqual([runId]);
    expect(placed).toEqual([]);
    expect(model.calls).toHaveLength(1);
  });

  it('a client that drops the connection at the pause does not cancel the run either', async () => {
    const { placed, agent } = orderAgent();
    const { url } = await startWith(agent);
    const client = await openSse(`${url}/v1/runs`, {
      body: { agent: 'shop', input: 'order eggs' },
      headers: as('alice'),
    });
    await client.waitFor((f) => f.event === 'done');
    client.destroy();
    await sleep(100);
    const approval = approvalOf(client.events);
    expect((await getRecord(url, approval.runId)).status).toBe('awaiting_approval');
    const approved = await postJson(approveUrl(url, approval.runId), answerOf(approval), as('alice'));
    expect(approved.status).toBe(200);
    expect(placed).toHaveLength(1);
  });

  it('a disconnect grace period that runs out while the run is paused cancels nothing', async () => {
    const { tool, placed } = orderTool();
    const model = scriptModel([
      { text: act('place_order', { item: 'eggs', qty: 2 }), delayMs: 100 },
      final('ordered'),
    ]);
    const { url } = await startWith({ model, tools: [tool] }, { limits: { disconnectGraceMs: 200 } });
    const client = await openSse(`${url}/v1/runs`, {
      body: { agent: 'shop', input: 'order eggs' },
      headers: as('alice'),
    });
    await client.waitFor((f) => f.event === 'start');
    client.destroy(); // gone while the model thinks; the run pauses before the grace runs out
    const runId = client.events[0]?.runId as string;
    await sleep(400);
    const record = await getRecord(url, runId);
    expect(record.status).toBe('awaiting_approval');
    const approval = record.pending_approval;
    const r = await postJson(
      approveUrl(url, runId),
      { actId: approval?.act_id, inputHash: approval?.input_hash, approve: true },
      as('alice'),
    );
    expect(r.body.record).toMatchObject({ status: 'success' });
    expect(placed).toHaveLength(1);
  });

  it('JSON fallback: the record of the pause, with pending_approval', async () => {
    const { agent } = orderAgent();
    const { url } = await startWith(agent);
    const r = await postJson(`${url}/v1/runs`, { agent: 'shop', input: 'order eggs' }, as('alice'));
    expect(r.status).toBe(200);
    const record = r.body.record as RunRecord;
    expect(record.status).toBe('awaiting_approval');
    expect(record.pending_approval?.tool).toBe('place_order');
    expect(shape(r.body.events as RunEvent[])).toEqual([
      'start',
      'step:reason',
      'step:act',
      'approval',
      'done',
    ]);
    expect(r.headers.get('x-run-id')).toBe(record.run_id);
  });
});

describe('POST /v1/runs/:id/approve', () => {
  it('SSE: streams the continuation from the event after the pause to the end; the tool ran once', async () => {
    const { model, placed, agent } = orderAgent();
    const { url } = await startWith(agent);
    const { runId, approval } = await pausedRun(url);
    const pauseDone = 4;
    const next = await openSse(approveUrl(url, runId), { body: answerOf(approval), headers: as('alice') });
    await next.ended;
    expect(next.response.statusCode).toBe(200);
    expect(next.response.headers['content-type']).toContain('text/event-stream');
    expect(shape(next.events)).toEqual(['resume', 'step:observe', 'step:reason', 'message', 'done']);
    expect(next.events.map((e) => e.seq)).toEqual([
      pauseDone + 1,
      pauseDone + 2,
      pauseDone + 3,
      pauseDone + 4,
      pauseDone + 5,
    ]);
    expect(next.events.at(-1)).toMatchObject({ type: 'done', status: 'success' });
    expect(observeOf(next.events).observation).toMatchObject({
      status: 'ok',
      result: { orderId: 'o-1' },
      approval: { kind: 'approved', by: 'alice' },
    });
    expect(placed).toEqual([{ item: 'eggs', qty: 2, principal: 'alice' }]);
    expect(model.calls).toHaveLength(2);
    const record = await getRecord(url, runId);
    expect(record).toMatchObject({ status: 'success', final_answer: 'ordered' });
    expect(record.pending_approval).toBeUndefined();
  });

  it('JSON: the record of the next stop and the events since the pause', async () => {
    const { placed, agent } = orderAgent();
    const { url } = await startWith(agent);
    const { runId, approval } = await pausedRun(url);
    const r = await postJson(approveUrl(url, runId), answerOf(approval), as('alice'));
    expect(r.status).toBe(200);
    expect(r.body.record).toMatchObject({ run_id: runId, status: 'success', final_answer: 'ordered' });
    const events = r.body.events as RunEvent[];
    expect(shape(events)).toEqual(['resume', 'step:observe', 'step:reason', 'message', 'done']);
    expect(events[0]).toMatchObject({ seq: 5, type: 'resume', outcome: { kind: 'approved' } });
    expect(placed).toHaveLength(1);
  });

  it('a second call that needs approval: the approve stream ends at the next pause', async () => {
    const { placed, agent } = orderAgent([
      act('place_order', { item: 'eggs', qty: 2 }),
      act('place_order', { item: 'milk', qty: 1 }),
      final('both ordered'),
    ]);
    const { url } = await startWith(agent);
    const { runId, approval } = await pausedRun(url);
    const next = await openSse(approveUrl(url, runId), { body: answerOf(approval), headers: as('alice') });
    await next.ended;
    expect(shape(next.events)).toEqual([
      'resume',
      'step:observe',
      'step:reason',
      'step:act',
      'approval',
      'done',
    ]);
    expect(next.events.at(-1)).toMatchObject({ status: 'awaiting_approval' });
    const second = approvalOf(next.events);
    expect(second.input).toEqual({ item: 'milk', qty: 1 });
    expect((await getRecord(url, runId)).pending_approval?.act_id).toBe(second.actId);
    const last = await postJson(approveUrl(url, runId), answerOf(second), as('alice'));
    expect(last.body.record).toMatchObject({ status: 'success', final_answer: 'both ordered' });
    expect(placed.map((p) => p.item)).toEqual(['eggs', 'milk']);
  });

  it('declined: the run finishes, the tool never ran, the model was told', async () => {
    const { model, placed, agent } = orderAgent([
      act('place_order', { item: 'eggs', qty: 2 }),
      final('not ordered'),
    ]);
    const { url } = await startWith(agent);
    const { runId, approval } = await pausedRun(url);
    const r = await postJson(approveUrl(url, runId), answerOf(approval, false), as('alice'));
    expect(r.status).toBe(200);
    expect(r.body.record).toMatchObject({ status: 'success', final_answer: 'not ordered' });
    expect(observeOf(r.body.events as RunEvent[]).observation).toMatchObject({
      status: 'rejected',
      error: { code: 'PERMISSION_DENIED' },
      approval: { kind: 'declined', by: 'alice' },
    });
    expect(placed).toEqual([]);
    expect(model.calls[1]?.messages.at(-1)?.content).toContain('declined');
  });

  it('a replayed approval (the same body twice) is refused the second time', async () => {
    const { placed, agent } = orderAgent();
    const { url } = await startWith(agent);
    const { runId, approval } = await pausedRun(url);
    const first = await postJson(approveUrl(url, runId), answerOf(approval), as('alice'));
    expect(first.status).toBe(200);
    const again = await postJson(approveUrl(url, runId), answerOf(approval), as('alice'));
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ error: { code: 'NOT_FOUND' } });
    expect((again.body.error as { message: string }).message).toContain('no approval is pending');
    expect(placed).toHaveLength(1);
  });

  it('a wrong inputHash → 400 INVALID_PARAMETER, and the run still waits', async () => {
    const { placed, agent } = orderAgent();
    const { url } = await startWith(agent);
    const { runId, approval } = await pausedRun(url);
    const wrong = { ...answerOf(approval), inputHash: 'f'.repeat(64) };
    const r = await postJson(approveUrl(url, runId), wrong, as('alice'));
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: { code: 'INVALID_PARAMETER' } });
    expect((await getRecord(url, runId)).status).toBe('awaiting_approval');
    expect(placed).toEqual([]);
    const ok = await postJson(approveUrl(url, runId), answerOf(approval), as('alice'));
    expect(ok.status).toBe(200);
    expect(placed).toHaveLength(1);
  });

  it('another act id → 404 NOT_FOUND (no such pending approval)', async () => {
    const { agent } = orderAgent();
    const { url } = await startWith(agent);
    const { runId, approval } = await pausedRun(url);
    const other = { ...answerOf(approval), actId: '11111111-1111-4111-8111-111111111111' };
    const r = await postJson(approveUrl(url, runId), other, as('alice'));
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('the body is strict: not JSON, unknown fields, wrong types → 400; too large → 413', async () => {
    const { placed, agent } = orderAgent();
    const { url } = await startWith(agent);
    const { runId, approval } = await pausedRun(url);
    const post = (body: string) =>
      fetch(approveUrl(url, runId), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...as('alice') },
        body,
      });
    const cases: [string, number][] = [
      ['not json', 400],
      ['[]', 400],
      [JSON.stringify({ ...answerOf(approval), by: 'bob' }), 400], // the approver is never from the body
      [JSON.stringify({ ...answerOf(approval), approve: 'yes' }), 400],
      [JSON.stringify({ actId: approval.actId, approve: true }), 400],
      [JSON.stringify({ ...answerOf(approval), pad: 'x'.repeat(2_000) }), 413],
    ];
    for (const [body, status] of cases) {
      const response = await post(body);
      expect(response.status, body.slice(0, 60)).toBe(status);
      expect(await response.json()).toMatchObject({
        error: { code: status === 413 ? 'PAYLOAD_TOO_LARGE' : 'INVALID_PARAMETER' },
      });
    }
    expect((await getRecord(url, runId)).status).toBe('awaiting_approval');
    expect(placed).toEqual([]);
  });

  it("another user's approval → the same 404 as a missing run; the run still waits", async () => {
    const { placed, agent } = orderAgent();
    const { url } = await startWith(agent);
    const { runId, approval } = await pausedRun(url);
    const theirs = await postJson(approveUrl(url, runId), answerOf(approval), as('bob'));
    const missing = await postJson(
      approveUrl(url, '00000000-0000-4000-8000-000000000000'),
      answerOf(approval),
      as('bob'),
    );
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual(missing.body);
    // Even a body that would be refused for its size: the owner check comes first.
    const big = await postJson(approveUrl(url, runId), { pad: 'x'.repeat(5_000) }, as('bob'));
    expect(big.status).toBe(404);
    expect((await getRecord(url, runId)).status).toBe('awaiting_approval');
    expect(placed).toEqual([]);
  });

  it('an approval after its expiry → 410 TIMEOUT; the run goes on without the call', async () => {
    let skewMs = 0;
    const { placed, agent } = orderAgent([act('place_order', { item: 'eggs', qty: 2 }), final('too late')]);
    const { url } = await startWith(agent, { deps: { run: { now: () => Date.now() + skewMs } } });
    const { runId, approval } = await pausedRun(url);
    skewMs = 11 * 60_000; // past the default approvalTtlMs (10 min), before the core's timer fires
    const r = await postJson(approveUrl(url, runId), answerOf(approval), as('alice'));
    expect(r.status).toBe(410);
    expect(r.body).toMatchObject({ error: { code: 'TIMEOUT' } });
    const events = await openSse(`${url}/v1/runs/${runId}/events`, {
      method: 'GET',
      headers: { ...as('alice'), 'last-event-id': '4' },
    });
    await events.ended;
    expect(events.events.at(-1)).toMatchObject({ type: 'done', status: 'success' });
    expect(observeOf(events.events).observation).toMatchObject({ error: { code: 'TIMEOUT' } });
    expect(placed).toEqual([]);
  });

  it('an approval nobody answers expires; the run then ends by itself and is released', async () => {
    const { placed, agent } = orderAgent([act('place_order', { item: 'eggs', qty: 2 }), final('expired')]);
    const { url } = await startWith({ ...agent, limits: { approvalTtlMs: 50 } });
    const { runId, approval } = await pausedRun(url);
    let record = await getRecord(url, runId);
    for (let i = 0; i < 100 && record.status === 'awaiting_approval'; i++) {
      await sleep(20);
      record = await getRecord(url, runId);
    }
    for (let i = 0; i < 100 && record.status !== 'success'; i++) {
      await sleep(20);
      record = await getRecord(url, runId);
    }
    expect(record).toMatchObject({ status: 'success', final_answer: 'expired' });
    expect(placed).toEqual([]);
    // Answered after its timer fired: told it expired (410), as an answer that comes late (it was 404).
    const late = await postJson(approveUrl(url, runId), answerOf(approval), as('alice'));
    expect(late.status).toBe(410);
    expect(late.body).toMatchObject({ error: { code: 'TIMEOUT' } });
    // Released once its entry has noted the final record (the record is readable a tick earlier).
    for (let i = 0; i < 50 && (current.running?.server.runs.unfinished('alice').length ?? 0) > 0; i++)
      await sleep(10);
    expect(current.running?.server.runs.unfinished('alice')).toEqual([]);
  });
});
