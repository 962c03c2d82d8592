import { afterEach, describe, expect, it } from 'vitest';
import { memoryRunStore, type ClarifyEvent, type PlanStepEvent, type RunEvent, type RunRecord } from 'reins';
import { scriptModel } from 'reins/testing';
import type { AgentDefinition } from '@reins/server';
import { claimsAgent } from './claims-agent.js';
import { as, final, openSse, postJson, shape, sleep, start, type Started } from './helpers.js';

let running: Started | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function startWith(agent: AgentDefinition): Promise<Started> {
  running = await start({ agents: { claims: agent } });
  return running;
}

const questionOf = (events: readonly RunEvent[]) =>
  events.find((e): e is ClarifyEvent => e.type === 'clarify');
const answerUrl = (url: string, runId: string) => `${url}/v1/runs/${runId}/answer`;

async function pausedRun(url: string) {
  const client = await openSse(`${url}/v1/runs`, {
    body: { agent: 'claims', input: '把张三在协和医院的住院记录同步到理赔系统' },
    headers: as('alice'),
  });
  await client.ended;
  const question = questionOf(client.events) as ClarifyEvent;
  return { client, question, runId: question.runId };
}

describe('plan agents over HTTP: a question, the answer, the resumed run', () => {
  it('SSE: the plan, the question with its candidates, done {awaiting_input}; the answer streams the rest', async () => {
    const { agent, queried } = claimsAgent();
    const { url } = await startWith(agent);
    const { client, question, runId } = await pausedRun(url);
    expect(shape(client.events).filter((s) => s !== 'step:progress')).toEqual([
      'start',
      'step:plan',
      'clarify',
      'done',
    ]);
    expect(client.events.at(-1)).toMatchObject({ type: 'done', status: 'awaiting_input' });
    const planEvent = client.events.find((e): e is PlanStepEvent => e.type === 'step' && e.phase === 'plan');
    expect(planEvent).toMatchObject({ version: 1, reason: 'initial', validation: { ok: false } });
    expect(question.candidates.map((c) => c.value)).toEqual(['BJXH001', 'WHXH001', 'FZXH001']);

    await sleep(50); // the stream ended at the pause: the run must not be taken for abandoned
    const paused = (await (
      await fetch(`${url}/v1/runs/${runId}`, { headers: as('alice') })
    ).json()) as RunRecord;
    expect(paused).toMatchObject({
      status: 'awaiting_input',
      pending_question: { question_id: question.questionId },
    });

    const resumed = await openSse(answerUrl(url, runId), {
      body: { questionId: question.questionId, answer: 'WHXH001' },
      headers: as('alice'),
    });
    await resumed.ended;
    expect(resumed.response.statusCode).toBe(200);
    expect(resumed.events[0]?.seq).toBe((client.events.at(-1)?.seq ?? 0) + 1);
    const rest = shape(resumed.events).filter((s) => s !== 'step:progress');
    expect(rest).toEqual([
      'resume',
      'step:plan',
      'step:act',
      'step:observe',
      'step:reason',
      'message',
      'done',
    ]);
    expect(resumed.events.find((e) => e.type === 'step' && e.phase === 'plan')).toMatchObject({
      version: 2,
      reason: 'clarified',
    });
    expect(resumed.events.at(-1)).toMatchObject({ type: 'done', status: 'success' });
    expect(queried).toEqual([{ patient_id: 'zhangsan', hospital_code: 'WHXH001' }]);
  });

  it('JSON: the answer returns the record of the next stop with the events since the pause', async () => {
    const { agent } = claimsAgent();
    const { url } = await startWith(agent);
    const { question, runId } = await pausedRun(url);
    const answered = await postJson(
      answerUrl(url, runId),
      { questionId: question.questionId, answer: 'BJXH001' },
      as('alice'),
    );
    expect(answered.status).toBe(200);
    expect(answered.body.record).toMatchObject({ status: 'success', final_answer: '2 stays synced' });
    expect((answered.body.events as RunEvent[])[0]).toMatchObject({
      type: 'resume',
      outcome: { kind: 'answered', value: 'BJXH001' },
    });
    expect((answered.body.events as RunEvent[])[1]?.type).toBe('step');
  });

  it('refuses: another user (404), a bad body (400), another question (404), a run not waiting (409)', async () => {
    const { agent } = claimsAgent();
    const { url } = await startWith(agent);
    const { question, runId } = await pausedRun(url);
    const body = { questionId: question.questionId, answer: 'BJXH001' };
    expect((await postJson(answerUrl(url, runId), body, as('mallory'))).status).toBe(404);
    expect((await postJson(answerUrl(url, 'no-such-run'), body, as('alice'))).status).toBe(404);
    for (const bad of [
      { questionId: question.questionId },
      { questionId: question.questionId, answer: '   ' },
      { questionId: question.questionId, answer: 'BJXH001', by: 'bob' },
      { questionId: 'bad id!', answer: 'x' },
      [],
    ]) {
      const refused = await postJson(answerUrl(url, runId), bad, as('alice'));
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ error: { code: 'INVALID_PARAMETER' } });
    }
    expect(
      (await postJson(answerUrl(url, runId), { ...body, questionId: 'other-question' }, as('alice'))).status,
    ).toBe(404);
    // Still waiting: the real answer works, once.
    expect((await postJson(answerUrl(url, runId), body, as('alice'))).status).toBe(200);
    const again = await postJson(answerUrl(url, runId), body, as('alice'));
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: { code: 'CONFLICT' } });
  });

  it('an answer after the question expired is 410, and the run goes on with its default', async () => {
    let clock = 1_000_000;
    const { agent, queried } = claimsAgent({
      clarify: { timeoutMs: 60_000, onTimeout: { default: 'BJXH001' } },
    });
    // A clock the test moves, and timers that never fire: only the answer can notice the expiry.
    running = await start({
      agents: { claims: agent },
      deps: { run: { now: () => clock, setTimer: () => 0, clearTimer: () => undefined } },
    });
    const { question, runId } = await pausedRun(running.url);
    clock += 60_001;
    const late = await postJson(
      answerUrl(running.url, runId),
      { questionId: question.questionId, answer: 'WHXH001' },
      as('alice'),
    );
    expect(late.status).toBe(410);
    expect(late.body).toMatchObject({ error: { code: 'TIMEOUT' } });
    for (let i = 0; i < 100 && queried.length === 0; i++) await sleep(10);
    expect(queried).toEqual([{ patient_id: 'zhangsan', hospital_code: 'BJXH001' }]);
    // Asked again once the run has gone on: still told it expired (it was a 409 "not waiting").
    const again = await postJson(
      answerUrl(running.url, runId),
      { questionId: question.questionId, answer: 'WHXH001' },
      as('alice'),
    );
    expect(again.status).toBe(410);
  });

  it('a ReAct agent without clarify still ends an ask as a message; answering it is a 409', async () => {
    const model = scriptModel([JSON.stringify({ thought: 't', ask: 'Which city?' })]);
    const { url } = await startWith({ model, tools: [] });
    const started = await postJson(`${url}/v1/runs`, { agent: 'claims', input: 'weather' }, as('alice'));
    const record = started.body.record as RunRecord;
    expect(record).toMatchObject({ status: 'success', intent: 'ask' });
    const refused = await postJson(
      answerUrl(url, record.run_id),
      { questionId: 'q1', answer: 'Beijing' },
      as('alice'),
    );
    expect(refused.status).toBe(409);
  });
});

describe('a plan paused on a question survives its server', () => {
  it('the next server (same run store) rebuilds it: the frozen plan is answered and runs; the first one never asked the model twice', async () => {
    const store = memoryRunStore();
    const first = claimsAgent();
    running = await start({ agents: { claims: first.agent }, durable: { store } });
    const { runId, question } = await pausedRun(running.url);
    await running.close(); // the server goes away; its store stays
    const second = claimsAgent({ model: scriptModel([final('2 stays synced')]) });
    running = await start({ agents: { claims: second.agent }, durable: { store } });
    expect(await running.server.recover()).toMatchObject({ rebuiltPaused: 1 });
    const answered = await postJson(
      answerUrl(running.url, runId),
      { questionId: question.questionId, answer: 'FZXH001' },
      as('alice'),
    );
    expect(answered.status).toBe(200);
    expect(answered.body.record).toMatchObject({ status: 'success', final_answer: '2 stays synced' });
    expect(second.queried).toEqual([{ patient_id: 'zhangsan', hospital_code: 'FZXH001' }]);
    expect(first.queried).toEqual([]);
    const plans =
      (await store.load(runId))?.events.filter((e) => e.type === 'step' && e.phase === 'plan') ?? [];
    expect(plans.map((p) => (p as { reason: string }).reason)).toEqual(['initial', 'clarified']);
  });

  it('a paused run cancelled after the restart ends cancelled; the tool never runs', async () => {
    const store = memoryRunStore();
    const first = claimsAgent();
    running = await start({ agents: { claims: first.agent }, durable: { store } });
    const { runId } = await pausedRun(running.url);
    await running.close();
    const second = claimsAgent();
    running = await start({ agents: { claims: second.agent }, durable: { store } });
    await running.server.recover();
    const cancelled = await postJson(`${running.url}/v1/runs/${runId}/cancel`, {}, as('alice'));
    expect(cancelled.body).toMatchObject({ run_id: runId, status: 'cancelled' });
    expect((await store.load(runId))?.run.status).toBe('cancelled');
    expect(second.queried).toEqual([]);
  });
});
