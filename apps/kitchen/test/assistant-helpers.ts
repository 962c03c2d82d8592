import {
  runAgent,
  type MessageEvent,
  type Model,
  type ObserveStep,
  type Principal,
  type RunEvent,
  type RunRecord,
} from 'reins';
import type { NutritionEntry, NutritionLookup } from '../src/assistant/nutrition-tool.js';
import { kitchenAgent } from '../src/assistant/agent.js';
import { toReinsPrincipal, type KitchenPrincipal } from '../src/services/principal.js';
import type { Harness } from './harness.js';

export const call = (action: string, input: Record<string, unknown>) => ({ action, input });
export const actions = (calls: { action: string; input: unknown }[], thought = 'looking things up'): string =>
  JSON.stringify({ thought, actions: calls });
export const act = (action: string, input: unknown, thought = 'acting'): string =>
  JSON.stringify({ thought, action, input });
export const final = (text: string, thought = 'done'): string => JSON.stringify({ thought, final: text });

/** A fake nutrition service: two foods, and a record of every name asked for. */
export function fakeNutrition(extra: Record<string, unknown> = {}) {
  const asked: string[] = [];
  const table: Record<string, NutritionEntry> = {
    鸡蛋: {
      code: 'O016',
      name: 'Egg, poultry, whole, raw',
      matchedAlias: '鸡蛋',
      source: 'IFCT 2017',
      per100g: { energyKcal: 134.5, proteinG: 13.3, fatG: 9.4, carbohydrateG: 0, fibreG: 0, sodiumMg: 136 },
    },
  };
  const lookup: NutritionLookup = (food) => {
    asked.push(food);
    const entry = table[food];
    // A lying service: claims of its own ride along and must not be copied.
    return Promise.resolve(entry === undefined ? null : ({ ...entry, ...extra } as NutritionEntry));
  };
  return { lookup, asked };
}

export interface AssistantRun {
  readonly events: readonly RunEvent[];
  readonly record: RunRecord;
  readonly observations: ObserveStep['observation'][];
  readonly answer: string | undefined;
  readonly message: MessageEvent | undefined;
}

/** Runs the kitchen agent for `principal` with `model` to the end. */
export async function ask(
  h: Harness,
  principal: KitchenPrincipal | Principal,
  model: Model,
  nutrition: NutritionLookup = fakeNutrition().lookup,
  query = '今晚吃什么？',
): Promise<AssistantRun> {
  const agent = kitchenAgent(h.services, { model, nutrition });
  const reins: Principal = 'userId' in principal ? toReinsPrincipal(principal) : principal;
  const run = runAgent({
    query,
    model: agent.model,
    tools: agent.tools,
    limits: agent.limits,
    instructions: agent.instructions,
    answer: agent.answer,
    principal: reins,
  });
  const record = await run.result;
  const events = run.events;
  const observations = events.flatMap((e) =>
    e.type === 'step' && e.phase === 'observe' ? [(e as ObserveStep).observation] : [],
  );
  const message = events.find((e): e is MessageEvent => e.type === 'message');
  return { events, record, observations, answer: message?.text, message };
}

/** The result of the first successful observation of `tool`, as a plain object. */
export function resultOf(run: AssistantRun, tool: string): Record<string, unknown> {
  const o = run.observations.find((x) => x.tool === tool && x.status === 'ok');
  if (o === undefined) {
    const seen = run.observations.filter((x) => x.tool === tool).map((x) => x.error);
    throw new Error(`no successful observation of ${tool}: ${JSON.stringify(seen)}`);
  }
  return o.result as Record<string, unknown>;
}
