import { expect, it } from 'vitest';
import { pino } from 'pino';
import { createReinsServer } from '@reins/server';
import type { Principal } from 'reins';
import { scriptModel } from 'reins/testing';
import { kitchenAgent } from '../src/assistant/agent.js';
import { toReinsPrincipal } from '../src/services/principal.js';
import { actions, call, fakeNutrition, final } from './assistant-helpers.js';
import { describeEachBackend, type Harness } from './harness.js';

/** The Reins server with the kitchen agent; the principal comes from the kitchen session only. */
function server(h: Harness, replies: Parameters<typeof scriptModel>[0]) {
  return createReinsServer({
    logger: pino({ level: 'silent' }), // the default logs every run to stdout
    agents: {
      kitchen: kitchenAgent(h.services, { model: scriptModel(replies), nutrition: fakeNutrition().lookup }),
    },
    authenticate: async (request): Promise<Principal | undefined> => {
      const token = request.headers.get('authorization')?.replace(/^Bearer /, '') ?? '';
      const session = await h.services.auth.authenticate(token);
      return session === null ? undefined : toReinsPrincipal(session.principal);
    },
  });
}

describeEachBackend('kitchen assistant served by @reins/server', (harness) => {
  it('runs for the session’s household; a household id in the request body changes nothing', async () => {
    const h = harness();
    const token = await h.login('laowang');
    const b = await h.householdId('老王家');
    const a = await h.householdId('小贾家');
    const app = server(h, [
      actions([call('household_preferences', {}), call('fridge_items', { household_id: a })]),
      final('老王家：虾过敏。'),
    ]).app;
    const post = (body: unknown, auth = true) =>
      app.request('/v1/runs', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(auth ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(body),
      });
    expect((await post({ agent: 'kitchen', input: '过敏？' }, false)).status).toBe(401);
    const smuggled = await post({
      agent: 'kitchen',
      input: '过敏？',
      householdId: a,
      principal: { id: 'x' },
    });
    expect(smuggled.status).toBe(400);
    expect(await smuggled.text()).toContain('householdId');
    const reply = await post({ agent: 'kitchen', input: '过敏？' });
    expect(reply.status).toBe(200);
    const text = await reply.text();
    expect(text).toContain('虾');
    // 小贾家's allergy. The kept prompts' system messages are the agent's fixed instructions and
    // tool catalog (whose recall_memories example names 花生): the household data is elsewhere.
    const system = /"role":"system","content":"(?:[^"\\]|\\.)*"/g;
    expect(text.match(system)?.length).toBeGreaterThan(0);
    expect(text.replace(system, '')).not.toContain('花生');
    const aRows = await h.db.query<{ id: string }>(
      'SELECT id FROM fridge_items WHERE household_id = $1 UNION ALL SELECT id FROM dietary_notes WHERE household_id = $1',
      [a],
    );
    for (const r of aRows) expect(text).not.toContain(r.id);
    expect(b).not.toBe(a);
  });
});
