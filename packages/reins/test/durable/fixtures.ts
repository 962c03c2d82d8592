import { z } from 'zod';
import { defineTool, type Model, type ModelRequest, type ModelResult, type RunEvent } from 'reins';

/**
 * A model whose reply depends only on the step it is asked for (not on how many calls it saw),
 * so a run rebuilt from any prefix of its history asks it exactly for the steps not recorded.
 */
export function stepModel(replies: readonly string[], delayMs = 0): Model & { readonly steps: number[] } {
  const steps: number[] = [];
  return {
    name: 'step-model',
    steps,
    async call(request: ModelRequest): Promise<ModelResult> {
      steps.push(request.step);
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
      const text = replies[request.step - 1] ?? '{"thought":"out of script","final":"?"}';
      return { ok: true, text, usage: { inputTokens: 10, outputTokens: 5 } };
    },
  };
}

/** Tools that count their executions by act id: a mutating one, a read-only one, an idempotent one. */
export function countingTools() {
  const executions = new Map<string, number>();
  const count = (tool: string, actId: string): void => {
    const key = `${tool}:${actId}`;
    executions.set(key, (executions.get(key) ?? 0) + 1);
  };
  const order = defineTool({
    name: 'place_order',
    description: 'Orders groceries (changes something).',
    input: z.object({ item: z.string() }),
    output: z.object({ orderId: z.string() }),
    readOnly: false,
    needsApproval: false,
    run: ({ item }, ctx) => {
      count('place_order', ctx.actId);
      return { orderId: `order-${item}` };
    },
  });
  const lookup = defineTool({
    name: 'lookup',
    description: 'Looks something up.',
    input: z.object({ q: z.string() }),
    output: z.object({ answer: z.string() }),
    readOnly: true,
    run: ({ q }, ctx) => {
      count('lookup', ctx.actId);
      return { answer: `about ${q}` };
    },
  });
  const charge = defineTool({
    name: 'charge',
    description: 'Charges a card, keyed by the act id (idempotent).',
    input: z.object({ cents: z.number().int() }),
    output: z.object({ ok: z.boolean() }),
    readOnly: false,
    needsApproval: false,
    idempotent: true,
    run: (_input, ctx) => {
      count('charge', ctx.actId);
      return { ok: true };
    },
  });
  const total = (tool: string): number =>
    [...executions].filter(([k]) => k.startsWith(`${tool}:`)).reduce((n, [, v]) => n + v, 0);
  return { tools: [order, lookup, charge], executions, total };
}

/** A sink that keeps what it was given, like a store (structured clones, in order). */
export function recordingSink() {
  const stored: RunEvent[] = [];
  return {
    stored,
    sink: async (events: readonly RunEvent[]) => {
      for (const e of events) if (e.seq >= stored.length) stored.push(structuredClone(e));
    },
  };
}

export const act = (action: string, input: Record<string, unknown>): string =>
  JSON.stringify({ thought: `use ${action}`, action, input });
export const final = (text: string): string => JSON.stringify({ thought: 'done', final: text });
export const kinds = (events: readonly RunEvent[]): string[] =>
  events.map((e) => (e.type === 'step' ? `step:${e.phase}` : e.type));
