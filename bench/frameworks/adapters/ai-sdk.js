// @ts-check
/** Vercel AI SDK (`ai`): `generateText` with one tool and `stopWhen: stepCountIs(K)`. */
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { INSTRUCTIONS, QUERY, TOOL_DESCRIPTION, add, executions } from '../scenario.js';
import { scriptedLanguageModel } from './ai-model.js';

export const executed = () => executions.count;

const tools = {
  add: tool({
    description: TOOL_DESCRIPTION,
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    outputSchema: z.object({ sum: z.number() }),
    execute: async (input) => add(input),
  }),
};

/** @type {Map<number, ReturnType<typeof scriptedLanguageModel>>} */
const models = new Map();
/** @param {number} k */
const modelFor = (k) => {
  let model = models.get(k);
  if (model === undefined) models.set(k, (model = scriptedLanguageModel(k)));
  return model;
};

/** @param {number} k @returns {Promise<import('../scenario.js').Outcome>} */
export async function run(k) {
  const result = await generateText({
    model: modelFor(k),
    system: INSTRUCTIONS,
    prompt: QUERY,
    tools,
    stopWhen: stepCountIs(k),
    maxRetries: 0,
  });
  let toolCalls = 0;
  for (const step of result.steps) toolCalls += step.toolResults.length;
  return { answer: result.text, toolCalls };
}
