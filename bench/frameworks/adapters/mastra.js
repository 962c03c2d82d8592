// @ts-check
/**
 * Mastra's `Agent` (`@mastra/core/agent`) with one `createTool()` tool, `generate()` with
 * `maxSteps: K`. Mastra takes AI SDK models, so the scripted model is the AI SDK one.
 */
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import { INSTRUCTIONS, QUERY, TOOL_DESCRIPTION, TOOL_NAME, add, executions } from '../scenario.js';
import { scriptedLanguageModel } from './ai-model.js';

export const executed = () => executions.count;

const addTool = createTool({
  id: TOOL_NAME,
  description: TOOL_DESCRIPTION,
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  outputSchema: z.object({ sum: z.number() }),
  execute: async (input) => add(input),
});

/** @type {Map<number, Agent>} */
const agents = new Map();
/** @param {number} k */
const agentFor = (k) => {
  let agent = agents.get(k);
  if (agent === undefined) {
    agent = new Agent({
      id: 'adder',
      name: 'adder',
      instructions: INSTRUCTIONS,
      // The scripted LanguageModelV4 (the AI SDK 7 interface, which Mastra accepts).
      model: /** @type {never} */ (scriptedLanguageModel(k)),
      tools: { [TOOL_NAME]: addTool },
    });
    agents.set(k, agent);
  }
  return agent;
};

/** @param {number} k @returns {Promise<import('../scenario.js').Outcome>} */
export async function run(k) {
  const result = await agentFor(k).generate(QUERY, { maxSteps: k });
  return { answer: result.text, toolCalls: countToolResults(result) };
}

/** @param {{ steps: { toolResults: unknown[] }[] }} result */
function countToolResults(result) {
  let n = 0;
  for (const step of result.steps) n += step.toolResults.length;
  return n;
}
