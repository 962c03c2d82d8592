import { z } from 'zod';
import {
  createToolPolicies,
  defaultDeps,
  defineTool,
  type ActEnv,
  type AnyTool,
  type RunEvent,
  type ToolContext,
  type ToolPolicies,
} from 'reins';

/** A tool that adds two numbers and remembers every call (input and context). */
export function countingAdd() {
  const calls: { input: { a: number; b: number }; ctx: ToolContext }[] = [];
  const tool = defineTool({
    name: 'add',
    description: 'Add two numbers.',
    input: z.object({ a: z.number(), b: z.number() }),
    output: z.object({ sum: z.number() }),
    readOnly: true,
    run: (input, ctx) => {
      calls.push({ input, ctx });
      return { sum: input.a + input.b };
    },
  });
  return { tool, calls };
}

/** A read-only tool whose result holds personal data (a mobile and an e-mail): what masking must hide. */
export const contactTool = defineTool({
  name: 'contact',
  description: 'A family member’s contact card.',
  input: z.object({ who: z.string() }),
  output: z.object({ phone: z.string(), email: z.string() }),
  readOnly: true,
  run: () => ({ phone: '13812345678', email: 'zhang.san@example.com' }),
});

/** A tool that never settles by itself; it records whether its signal aborted. */
export function hangingTool(options: { timeoutMs?: number; honourSignal?: boolean } = {}) {
  const seen = { started: 0, aborted: 0 };
  const tool = defineTool({
    name: 'hang',
    description: 'Never finishes.',
    input: z.object({ n: z.number().optional() }),
    output: z.object({ ok: z.boolean() }),
    readOnly: true,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    run: (_input, ctx) =>
      new Promise<{ ok: boolean }>((_resolve, reject) => {
        seen.started++;
        ctx.signal.addEventListener('abort', () => {
          seen.aborted++;
          if (options.honourSignal !== false) reject(new Error('aborted'));
        });
      }),
  });
  return { tool, seen };
}

export const act = (action: string, input: Record<string, unknown>, thought = 'acting'): string =>
  JSON.stringify({ thought, action, input });
export const final = (text: string, thought = 'done'): string => JSON.stringify({ thought, final: text });

export async function collect(run: AsyncIterable<RunEvent>): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of run) events.push(event);
  return events;
}

/** Event types with the step phase, e.g. `step:reason`. */
export function shape(events: readonly RunEvent[]): string[] {
  return events.map((e) => (e.type === 'step' ? `step:${e.phase}` : e.type));
}

/** A tool with empty input and output schemas: for tests about the runtime, not the tool. */
export function blankTool(name: string, options: { timeoutMs?: number; run?: () => unknown } = {}) {
  return defineTool({
    name,
    description: name,
    input: z.object({}),
    output: z.object({}),
    readOnly: true,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    run: (options.run ?? (() => ({}))) as () => Record<string, never>,
  });
}

/** An act environment as a run would give one, for calling `executeAction` directly. */
export function actEnv(
  tools: AnyTool[],
  policies: ToolPolicies = createToolPolicies(),
  signal: AbortSignal = new AbortController().signal,
): ActEnv {
  return {
    registry: new Map(tools.map((t) => [t.name, t])),
    principal: { id: 'u1' },
    runId: 'run-1',
    signal,
    defaultTimeoutMs: 1_000,
    deps: defaultDeps,
    policies,
  };
}
