import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, runPlanAgent, type PlanStepEvent, type RunEvent } from 'reins';
import { scriptModel } from 'reins/testing';
import { final } from '../helpers.js';
import { plan, step } from './plan-tools.js';

const plans = (events: readonly RunEvent[]) =>
  events.filter((e): e is PlanStepEvent => e.type === 'step' && e.phase === 'plan');

function tools() {
  const sent: unknown[] = [];
  const lookup = defineTool({
    name: 'lookup_user',
    description: 'the user id of a person',
    input: z.object({ who: z.string() }),
    output: z.object({ userId: z.string() }),
    readOnly: true,
    run: () => ({ userId: 'u-1042' }),
  });
  const notify = defineTool({
    name: 'notify',
    description: 'notify recipients',
    input: z.object({ recipients: z.array(z.string()).min(1), text: z.string() }),
    output: z.object({ ok: z.boolean() }),
    readOnly: true,
    run: (input) => {
      sent.push(input);
      return { ok: true };
    },
  });
  return { tools: [lookup, notify], sent };
}

// validate-plan skips schema issues at or under a reference, but compared the dotted path
// (`recipients.0`) with the reference's place as findRefs writes it (`recipients[0]`): a plan
// with a reference inside an array was refused as invalid_input and re-planned.
describe('a $ref inside an array in a step input', () => {
  it('stands for a value not known yet (validation does not judge it against the item schema)', async () => {
    const { tools: list, sent } = tools();
    const model = scriptModel([
      plan([
        step('s1', 'lookup_user', { who: '李四' }),
        step('s2', 'notify', { recipients: [{ $ref: 's1.output.userId' }], text: 'hi' }, ['s1']),
      ]),
      // what a re-plan would get (the run should not need it)
      plan([
        step('s1', 'lookup_user', { who: '李四' }),
        step('s2', 'notify', { recipients: [{ $ref: 's1.output.userId' }], text: 'hi' }, ['s1']),
      ]),
      final('notified'),
      final('notified'),
    ]);
    const run = runPlanAgent({ query: 'tell 李四 hi', model, tools: list });
    const record = await run.result;
    const [v1] = plans(run.events);
    expect(v1?.validation.problems).toEqual([]);
    expect(v1?.validation.ok).toBe(true);
    expect(sent).toEqual([{ recipients: ['u-1042'], text: 'hi' }]);
    expect(record.status).toBe('success');
  });
});
