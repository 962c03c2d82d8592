import { describe, expect, it } from 'vitest';
import { runPlanAgent, type PlanStepEvent, type RunEvent } from 'reins';
import { scriptModel } from 'reins/testing';
import { final } from '../helpers.js';
import { claimsTools, hospitalCodes, plan, step } from './plan-tools.js';

const plans = (events: readonly RunEvent[]) =>
  events.filter((e): e is PlanStepEvent => e.type === 'step' && e.phase === 'plan');

// Over the cap (or on timeout) the configured default answers a question; a default the validator
// refused was patched in, refused, asked again, defaulted again … until the node-hop guard ended
// the run as an INTERNAL error after ~100 identical plan versions.
describe('clarify.onTimeout default that the validator rejects', () => {
  it('does not loop validator↔clarifier until the hop guard crashes the run', async () => {
    const { tools, calls } = claimsTools();
    const model = scriptModel([
      plan([step('s1', 'query_medical_record', { patient_id: 'zhangsan', hospital_code: '协和' })]),
      final('unused'),
    ]);
    // One question; it expires and the configured default is used — a value the validator rejects.
    const run = runPlanAgent({
      query: '把张三在协和医院的住院记录同步到理赔系统',
      model,
      tools,
      validators: [hospitalCodes],
      clarify: { maxQuestions: 1, timeoutMs: 20, onTimeout: { default: 'NOPE999' } },
    });
    // First question expires → default; the patched plan is invalid again → over the cap → default …
    const record = await run.result.then(async (r) =>
      r.status === 'awaiting_input' ? await waitEnd(run) : r,
    );
    expect(calls).toEqual([]);
    // A bounded, explained outcome: not an INTERNAL error after ~100 identical plan versions.
    expect(record.status).toBe('stopped');
    expect(record.stop_reason).toBe('unanswered');
    expect(record.final_answer).toContain('the default answer did not resolve the question');
    expect(plans(run.events).map((p) => p.reason)).toEqual(['initial', 'clarified']);
  });
});

async function waitEnd(run: ReturnType<typeof runPlanAgent>) {
  for (;;) {
    await new Promise((r) => setTimeout(r, 10));
    const last = run.events.at(-1);
    if (last?.type === 'done' && last.status !== 'awaiting_input') return run.result;
  }
}
