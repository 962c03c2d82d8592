import type { ChatMessage } from 'reins';
import type { z } from 'zod';
import { nutritionOutput } from '../nutrition-tool.js';
import { fridgeOutput, mealPlanOutput, preferencesOutput, recipeSearchOutput } from '../schemas.js';

const LINE = /^Observation \(tool ([^,]+), act [^)]+\): (.*)$/;

/** One observation as the demo model read it back from the prompt. */
export interface SeenObservation {
  readonly tool: string;
  readonly ok: boolean;
  readonly result?: unknown;
  readonly code?: string;
}

/** What the run observed so far, by tool (the last observation of each tool wins). */
export interface Seen {
  readonly all: readonly SeenObservation[];
  readonly tools: ReadonlySet<string>;
  fridge(): z.infer<typeof fridgeOutput>['items'] | undefined;
  /** How many fridge items there are in all (the tool shows the first of them). */
  fridgeTotal(): number | undefined;
  recipes(): z.infer<typeof recipeSearchOutput>['matches'] | undefined;
  plan(): z.infer<typeof mealPlanOutput> | undefined;
  profile(): z.infer<typeof preferencesOutput> | undefined;
  nutrition(): z.infer<typeof nutritionOutput> | undefined;
  /** The lookup of this food (as asked), or undefined. */
  nutritionFor(food: string): z.infer<typeof nutritionOutput> | undefined;
  /** Foods looked up so far (ok or not): a failed lookup is not asked for again. */
  nutritionTries(): number;
  /** The error code of a tool's failed observation, if its last one failed. */
  failed(tool: string): string | undefined;
}

/**
 * The observations one message holds, read once: a run's later steps are sent the same message
 * objects again, so each is parsed only the first time (the demo model runs on every step).
 */
const observationsOf = new WeakMap<ChatMessage, readonly SeenObservation[]>();

function observationsIn(message: ChatMessage): readonly SeenObservation[] {
  let found = observationsOf.get(message);
  if (found !== undefined) return found;
  const observations: SeenObservation[] = [];
  for (const line of message.content.split('\n')) {
    const match = LINE.exec(line);
    if (match === null) continue;
    const tool = match[1] ?? '';
    try {
      const body = JSON.parse(match[2] ?? '') as {
        status?: string;
        result?: unknown;
        error?: { code?: string };
      };
      observations.push(
        body.status === 'ok'
          ? { tool, ok: true, result: body.result }
          : { tool, ok: false, code: body.error?.code ?? body.status ?? 'ERROR' },
      );
    } catch {
      observations.push({ tool, ok: false, code: 'TRUNCATED' }); // cut for the prompt: not readable
    }
  }
  found = observations;
  observationsOf.set(message, found);
  return found;
}

/**
 * What a schema made of an observation's result, kept per observation: the demo model asks for
 * the same few results many times a step (each parse is a copy of the result), and an
 * observation object lives as long as its message. Read-only for the callers.
 */
const parsedOf = new WeakMap<SeenObservation, Map<z.ZodType, unknown>>();

export function parsedResult<T>(o: SeenObservation, schema: z.ZodType<T>): T | undefined {
  let bySchema = parsedOf.get(o);
  if (bySchema === undefined) parsedOf.set(o, (bySchema = new Map()));
  if (bySchema.has(schema)) return bySchema.get(schema) as T | undefined;
  const parsed = schema.safeParse(o.result);
  const value = parsed.success ? parsed.data : undefined;
  bySchema.set(schema, value);
  return value;
}

/** Reads the observations back from the prompt's text history (one line per observation). */
export function readSeen(messages: readonly ChatMessage[]): Seen {
  const all: SeenObservation[] = [];
  for (let i = 2; i < messages.length; i++) {
    const message = messages[i] as ChatMessage;
    if (message.role !== 'user' && message.role !== 'tool') continue;
    for (const observation of observationsIn(message)) all.push(observation);
  }
  const last = (tool: string) => [...all].reverse().find((o) => o.tool === tool);
  const read = <T>(tool: string, schema: z.ZodType<T>): T | undefined => {
    const o = last(tool);
    return o?.ok === true ? parsedResult(o, schema) : undefined;
  };
  return {
    all,
    tools: new Set(all.map((o) => o.tool)),
    fridge: () => read('fridge_items', fridgeOutput)?.items,
    recipes: () => read('search_recipes', recipeSearchOutput)?.matches,
    plan: () => read('meal_plan', mealPlanOutput),
    profile: () => read('household_preferences', preferencesOutput),
    nutrition: () => read('nutrition_lookup', nutritionOutput),
    fridgeTotal: () => read('fridge_items', fridgeOutput)?.total,
    nutritionFor: (food) => {
      for (const o of [...all].reverse()) {
        if (o.tool !== 'nutrition_lookup' || !o.ok) continue;
        const parsed = parsedResult(o, nutritionOutput);
        if (parsed?.food === food) return parsed;
      }
      return undefined;
    },
    nutritionTries: () => all.filter((o) => o.tool === 'nutrition_lookup').length,
    failed: (tool) => {
      const o = last(tool);
      return o === undefined || o.ok ? undefined : (o.code ?? 'ERROR');
    },
  };
}
