// Found in review: the gradual rollout (packages/models/src/rollout.ts).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { gradualRollout } from '@reins/models';
import { defineTool, runAgent, type ApprovalEvent, type Model, type ModelResult } from 'reins';

const reply = (text: string): ModelResult => ({ ok: true, text, usage: { inputTokens: 1, outputTokens: 1 } });
const final = (text: string): string => JSON.stringify({ thought: 't', final: text });

describe('a run already on the candidate finishes there', () => {
  // Contract: "once the candidate's error rate exceeds the stable model's … the candidate is
  // switched off for every later run … A run already on the candidate finishes there"
  // (rollout.ts:63-68); docs/runtime.md:173-179. `observe` deletes the run's side when its
  // event iterator ends (rollout.ts:136), and a run's iterator ends at a pause
  // (`done {awaiting_approval}`, event-log.ts LogCursor). If the candidate is switched off
  // while the run waits for approval, the resumed run's next model call finds no side, is
  // assigned afresh (rollout.ts:103-107) and is answered by the stable model. (Its later steps
  // are not counted on either side either: `observe` has already returned.)
  it('a candidate run paused for approval resumes on the candidate after a switch-off', async () => {
    const order = defineTool({
      name: 'place_order',
      description: 'orders',
      input: z.object({ item: z.string() }),
      output: z.object({ ok: z.boolean() }),
      readOnly: false, // needs approval
      run: () => ({ ok: true }),
    });
    const candidate: Model = {
      name: 'candidate',
      call: async (r) => {
        if (r.userKey === 'alice') {
          return reply(
            r.step === 1
              ? JSON.stringify({ thought: 't', action: 'place_order', input: { item: 'x' } })
              : final('from candidate'),
          );
        }
        return reply('not json at all'); // bob's runs: unparseable, the candidate looks bad
      },
    };
    const stable: Model = { name: 'stable', call: async () => reply(final('from stable')) };
    const rollout = gradualRollout({ stable, candidate, share: 1, minSteps: 1, assign: () => 0 });

    const alice = { id: 'alice' };
    const run = runAgent({ query: 'order x', model: rollout.model, tools: [order], principal: alice });
    const observed = rollout.observe(run);
    const paused = await run.result;
    expect(paused.status).toBe('awaiting_approval');
    await observed;

    // Meanwhile another user's candidate runs fail: the candidate is switched off.
    for (let i = 0; i < 3; i++) {
      await rollout.observe(
        runAgent({ query: 'q', model: rollout.model, tools: [], principal: { id: 'bob' } }),
      );
    }
    expect(rollout.stats().enabled).toBe(false);

    const approval = run.events.find((e) => e.type === 'approval') as ApprovalEvent;
    expect(
      run.approve({ by: alice, actId: approval.actId, inputHash: approval.inputHash, approve: true }),
    ).toMatchObject({ ok: true });
    const ended = await run.result;
    expect(ended.status).toBe('success');
    expect(ended.final_answer).toBe('from candidate');
  });
});
