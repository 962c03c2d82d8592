// What the approval tests share: a tool that needs approval, its agent, a server per test, and
// readers of a run paused at its approval.
import { afterEach } from 'vitest';
import { z } from 'zod';
import { defineTool, type ApprovalEvent, type ObserveStep, type RunEvent, type RunRecord } from 'reins';
import { scriptModel } from 'reins/testing';
import type { AgentDefinition, ReinsServerOptions } from '@reins/server';
import { act, as, final, openSse, start, type Started } from './helpers.js';

/** The server the running test started (`startWith`); closed after each test of the file that calls `closeAfterEach`. */
export const current: { running: Started | undefined } = { running: undefined };

export function closeAfterEach(): void {
  afterEach(async () => {
    await current.running?.close();
    current.running = undefined;
  });
}

/** A tool that changes something (`readOnly: false`): every call waits for the user's approval. */
export function orderTool() {
  const placed: { item: string; qty: number; principal: string }[] = [];
  const tool = defineTool({
    name: 'place_order',
    description: 'Orders groceries.',
    input: z.object({ item: z.string(), qty: z.number().int().min(1).max(10) }),
    output: z.object({ orderId: z.string() }),
    readOnly: false,
    run: (input, ctx) => {
      placed.push({ ...input, principal: ctx.principal.id });
      return { orderId: `o-${placed.length}` };
    },
  });
  return { tool, placed };
}

export function orderAgent(
  replies: string[] = [act('place_order', { item: 'eggs', qty: 2 }), final('ordered')],
) {
  const { tool, placed } = orderTool();
  const model = scriptModel(replies);
  return { model, placed, agent: { model, tools: [tool] } };
}

export async function startWith(
  agent: AgentDefinition,
  options: Partial<ReinsServerOptions> = {},
): Promise<Started> {
  current.running = await start({ agents: { shop: agent }, ...options });
  return current.running;
}

export const approvalOf = (events: readonly RunEvent[]): ApprovalEvent =>
  events.find((e) => e.type === 'approval') as ApprovalEvent;
export const observeOf = (events: readonly RunEvent[]): ObserveStep =>
  events.find((e) => e.type === 'step' && e.phase === 'observe') as ObserveStep;

/** Starts a run over SSE and reads it to its pause. */
export async function pausedRun(url: string, user = 'alice') {
  const client = await openSse(`${url}/v1/runs`, {
    body: { agent: 'shop', input: 'order eggs' },
    headers: as(user),
  });
  await client.ended;
  const approval = approvalOf(client.events);
  return { client, runId: approval.runId, approval };
}

export async function getRecord(url: string, runId: string, user = 'alice'): Promise<RunRecord> {
  const response = await fetch(`${url}/v1/runs/${runId}`, { headers: as(user) });
  return (await response.json()) as RunRecord;
}

export const approveUrl = (url: string, runId: string): string => `${url}/v1/runs/${runId}/approve`;
export const answerOf = (approval: ApprovalEvent, approve = true) => ({
  actId: approval.actId,
  inputHash: approval.inputHash,
  approve,
});

export function sample(metrics: string, series: string): number | undefined {
  const line = metrics.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
