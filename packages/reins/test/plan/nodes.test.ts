import { describe, expect, it } from 'vitest';
import { DEFAULT_PLAN_NODES, routerNode, runPlanAgent, type PlanNode, type RunEvent } from 'reins';
import { scriptModel } from 'reins/testing';
import { final } from '../helpers.js';
import { claimsTools, plan, step } from './plan-tools.js';

const traced = (events: readonly RunEvent[]) =>
  events.flatMap((e) =>
    e.type === 'step' && e.phase === 'progress' && e.source === 'node' ? [`${e.node}:${e.ok}`] : [],
  );

describe('composable nodes', () => {
  it('an app adds its own node between validator and executor without a graph framework', async () => {
    const seen: string[][] = [];
    const audit: PlanNode = {
      name: 'audit',
      run(state) {
        seen.push(state.plan?.steps.map((s) => `${s.id}:${s.action}`) ?? []);
        return state;
      },
    };
    // The app's router sends validated plans through `audit`, then defers to the default.
    const router: PlanNode = {
      name: 'router',
      run(state, ctx) {
        if (state.last === 'validator' && state.validation?.ok === true) {
          state.next = 'audit';
          return state;
        }
        if (state.last === 'audit') state.last = 'validator';
        return routerNode.run(state, ctx);
      },
    };
    const { tools, calls } = claimsTools();
    const model = scriptModel([plan([step('s1', 'find_policy', { insured: '张三' })]), final('ok')]);
    const run = runPlanAgent({ query: 'x', model, tools, nodes: [...DEFAULT_PLAN_NODES, audit], router });
    expect((await run.result).status).toBe('success');
    expect(seen).toEqual([['s1:find_policy']]);
    expect(calls).toHaveLength(1);
    expect(traced(run.events).filter((n) => !n.startsWith('router'))).toEqual([
      'planner:true',
      'validator:true',
      'audit:true',
      'executor:true',
      'responder:true',
    ]);
  });

  it('a node that throws ends the run as an error, traced as failed, never hanging', async () => {
    const broken: PlanNode = {
      name: 'executor',
      run() {
        throw new Error('boom');
      },
    };
    const nodes = DEFAULT_PLAN_NODES.map((n) => (n.name === 'executor' ? broken : n));
    const { tools } = claimsTools();
    const model = scriptModel([plan([step('s1', 'find_policy', { insured: '张三' })])]);
    const run = runPlanAgent({ query: 'x', model, tools, nodes });
    const record = await run.result;
    expect(record.status).toBe('error');
    expect(record.error?.message).toContain('boom');
    expect(traced(run.events)).toContain('executor:false');
  });
});
