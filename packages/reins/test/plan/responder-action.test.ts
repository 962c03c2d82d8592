import { describe, expect, it } from 'vitest';
import { runPlanAgent } from 'reins';
import { scriptModel } from 'reins/testing';
import { act } from '../helpers.js';
import { claimsTools, plan, step } from './plan-tools.js';

// The responder's call offers no tools: it is the run's last step. A model that answers it
// with another tool call (or several) has not answered. Its JSON was shown to the user as a
// successful answer (format "raw"); the ReAct loop ends such a last step `stopped`
// (`max_steps`) with a notice, and so does a plan run now.
describe('a responder that asks for a tool call instead of answering', () => {
  it.each([
    ['one action', act('send_policy', { policy_no: 'P2024001', to: '李四' })],
    [
      'several actions',
      JSON.stringify({
        thought: 'send both',
        actions: [
          { action: 'send_policy', input: { policy_no: 'P2024001', to: '李四' } },
          { action: 'send_policy', input: { policy_no: 'P2024001', to: '王五' } },
        ],
      }),
    ],
  ])('%s: the run stops with a notice, the JSON is not the answer', async (_, reply) => {
    const { tools, calls } = claimsTools();
    const model = scriptModel([plan([step('s1', 'find_policy', { insured: '张三' })]), reply]);
    const record = await runPlanAgent({ query: '查张三的保单', model, tools }).result;
    expect(calls.map((c) => c.tool)).toEqual(['find_policy']); // nothing more was run
    expect(record.status).toBe('stopped');
    expect(record.stop_reason).toBe('max_steps');
    expect(record.intent).toBe('notice');
    expect(record.final_answer).not.toContain('"action');
    expect(record.final_answer).toContain('send_policy');
  });
});
