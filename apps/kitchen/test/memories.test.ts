import { expect, it } from 'vitest';
import { KitchenError } from '../src/domain/errors.js';
import { describeEachBackend } from './harness.js';
import { answerApproval, answerOf, askOverHttp, assistantServer } from './memory-helpers.js';

describeEachBackend('household memories', (harness) => {
  it('REST: add {text}, list newest first, delete; the same text twice is one memory', async () => {
    const h = harness();
    const token = await h.login('xiaojia');
    const add = (body: unknown) => h.request('POST', '/api/memories', { token, body });
    const first = await add({ text: '  婆婆不吃辣 ' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ text: '婆婆不吃辣', createdAt: expect.any(String) as string });
    const second = await add({ text: '小宝对花生过敏' });
    expect((await add({ text: '婆婆不吃辣' })).body).toEqual(first.body);
    const listed = await h.request('GET', '/api/memories', { token });
    expect(listed.status).toBe(200);
    const texts = (listed.body as { memories: { text: string }[] }).memories.map((m) => m.text);
    expect(texts.slice(0, 2)).toEqual(['小宝对花生过敏', '婆婆不吃辣']);
    const id = (second.body as { id: string }).id;
    expect((await h.request('DELETE', `/api/memories/${id}`, { token })).status).toBe(204);
    const again = await h.request('DELETE', `/api/memories/${id}`, { token });
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ error: { code: 'NOT_FOUND' } });
    const after = (await h.request('GET', '/api/memories', { token })).body as { memories: { id: string }[] };
    expect(after.memories.map((m) => m.id)).not.toContain(id);
  });

  it('REST: bad input is a 400 naming the field; no session is a 401; nothing is stored', async () => {
    const h = harness();
    const token = await h.login('xiaojia');
    const before = (await h.request('GET', '/api/memories', { token })).body;
    const blank = await h.request('POST', '/api/memories', { token, body: { text: '   ' } });
    expect(blank.status).toBe(400);
    expect(blank.body).toMatchObject({ error: { code: 'INVALID_PARAMETER', field: 'text' } });
    const long = await h.request('POST', '/api/memories', { token, body: { text: '辣'.repeat(501) } });
    expect(long.body).toMatchObject({ error: { code: 'INVALID_PARAMETER', field: 'text' } });
    const smuggled = await h.request('POST', '/api/memories', {
      token,
      body: { text: '爷爷爱吃鱼', householdId: await h.householdId('老王家') },
    });
    expect(smuggled.body).toMatchObject({ error: { code: 'INVALID_PARAMETER', field: 'householdId' } });
    expect((await h.request('GET', '/api/memories')).status).toBe(401);
    expect((await h.request('POST', '/api/memories', { body: { text: '爷爷爱吃鱼' } })).status).toBe(401);
    expect((await h.request('GET', '/api/memories', { token })).body).toEqual(before);
  });

  it('service: a non-member or a principal without a household is refused on every method', async () => {
    const h = harness();
    const laowang = await h.principal('laowang');
    const intruder = { userId: laowang.userId, householdId: await h.householdId('小贾家') };
    const none = { userId: laowang.userId, householdId: null };
    for (const principal of [intruder, none]) {
      const calls = [
        () => h.services.memories.list(principal),
        () => h.services.memories.remember(principal, { text: '婆婆不吃辣' }),
        () => h.services.memories.recall(principal, { query: '辣' }),
        () => h.services.memories.recall(principal, { query: '？！' }), // no term to match: still checked
        () => h.services.memories.recall(principal, { query: '' }), // invalid too: refused first, as before
        () => h.services.memories.recall(principal, { query: '辣', householdId: 'x' }),
        () => h.services.memories.forget(principal, 'x'),
      ];
      for (const callIt of calls) {
        const error = await callIt().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(KitchenError);
        expect((error as KitchenError).code).toBe('PERMISSION_DENIED');
      }
    }
  });

  it('the assistant over HTTP recalls 婆婆不吃辣 for 今晚做什么菜？ and the answer shows the memory it used', async () => {
    const h = harness();
    const token = await h.login('xiaojia');
    await h.request('POST', '/api/memories', { token, body: { text: '婆婆不吃辣' } });
    const app = assistantServer(h);
    const run = await askOverHttp(app, token, '今晚做什么菜？');
    const recall = run.events.find(
      (e) => e.type === 'step' && e.phase === 'act' && e.tool === 'recall_memories',
    );
    expect(recall).toBeDefined(); // the recall is evidence in the run log
    const answer = answerOf(run);
    expect(answer.memories?.map((m) => m.text)).toContain('婆婆不吃辣');
    expect(answer.reply).toContain('婆婆不吃辣');
    // The demo model acts on it: no dish tagged 辣 is suggested (麻婆豆腐 is, without the memory).
    const cards = (answer as { cards?: { type: string; name: string; tags?: string[] }[] }).cards ?? [];
    expect(cards.filter((c) => c.type === 'recipe').length).toBeGreaterThan(0);
    expect(cards.some((c) => c.tags?.includes('辣') === true)).toBe(false);
  });

  it('"记住：…" pauses for approval; approved, the memory is stored; declined, nothing is', async () => {
    const h = harness();
    const token = await h.login('xiaojia');
    const app = assistantServer(h);
    const listed = async () =>
      (
        (await h.request('GET', '/api/memories', { token })).body as { memories: { text: string }[] }
      ).memories.map((m) => m.text);

    const asked = await askOverHttp(app, token, '记住：爷爷不吃香菜');
    expect(asked.record.status).toBe('awaiting_approval');
    const approval = asked.events.find((e) => e.type === 'approval');
    expect(approval).toMatchObject({ tool: 'remember_memory', input: { text: '爷爷不吃香菜' } });
    expect(await listed()).not.toContain('爷爷不吃香菜'); // nothing before the user's yes
    const approved = await answerApproval(app, token, asked, true);
    expect(approved.record.status).toBe('success');
    expect(answerOf(approved).reply).toContain('记住了：爷爷不吃香菜');
    expect(await listed()).toContain('爷爷不吃香菜');

    const declinedRun = await askOverHttp(app, token, 'remember that Grandpa hates cilantro');
    const declined = await answerApproval(app, token, declinedRun, false);
    expect(answerOf(declined).reply).toContain('did not remember');
    expect(await listed()).not.toContain('Grandpa hates cilantro');
  });

  it('the model never writes a memory on its own: a question is not a request to remember', async () => {
    const h = harness();
    const token = await h.login('xiaojia');
    const app = assistantServer(h);
    const before = (await h.request('GET', '/api/memories', { token })).body;
    const run = await askOverHttp(app, token, '婆婆不吃辣，今晚做什么菜？');
    expect(run.events.some((e) => e.type === 'approval')).toBe(false);
    expect(run.record.status).toBe('success');
    expect((await h.request('GET', '/api/memories', { token })).body).toEqual(before);
  });
});
