// @ts-check
/**
 * OpenAI Agents JS (`@openai/agents`): an `Agent` with one `tool()`, run by a `Runner` with
 * `maxTurns: K`; the scripted model is a custom `Model`. Tracing is switched off (it would
 * export spans to OpenAI's servers).
 */
import { Agent, Runner, Usage, setTracingDisabled, tool } from '@openai/agents';
import { z } from 'zod';
import { INSTRUCTIONS, QUERY, TOOL_DESCRIPTION, TOOL_NAME, add, decide, executions } from '../scenario.js';

setTracingDisabled(true);

export const executed = () => executions.count;

const addTool = tool({
  name: TOOL_NAME,
  description: TOOL_DESCRIPTION,
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: async (input) => add(input),
});

/** @param {string | { type?: string }[]} input */
const toolResultsIn = (input) => {
  if (typeof input === 'string') return 0;
  let n = 0;
  for (const item of input) if (item.type === 'function_call_result') n++;
  return n;
};

/**
 * @param {number} k
 * @returns {import('@openai/agents').Model}
 */
function scriptedModel(k) {
  return {
    async getResponse(request) {
      const move = await decide(k, toolResultsIn(request.input));
      const usage = new Usage();
      if (move.kind === 'tool') {
        return {
          usage,
          output: [
            {
              type: 'function_call',
              callId: move.callId,
              name: TOOL_NAME,
              arguments: JSON.stringify(move.input),
              status: 'completed',
            },
          ],
        };
      }
      return {
        usage,
        output: [
          {
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: move.text }],
          },
        ],
      };
    },
    // eslint-disable-next-line require-yield -- never streamed here
    async *getStreamedResponse() {
      throw new Error('the scripted model only generates');
    },
  };
}

const runner = new Runner({ tracingDisabled: true });
/** @type {Map<number, Agent>} */
const agents = new Map();
/** @param {number} k */
const agentFor = (k) => {
  let agent = agents.get(k);
  if (agent === undefined) {
    agent = new Agent({
      name: 'adder',
      instructions: INSTRUCTIONS,
      model: scriptedModel(k),
      tools: [addTool],
    });
    agents.set(k, agent);
  }
  return agent;
};

/** @param {number} k @returns {Promise<import('../scenario.js').Outcome>} */
export async function run(k) {
  const result = await runner.run(agentFor(k), QUERY, { maxTurns: k });
  let toolCalls = 0;
  for (const item of result.newItems) if (item.type === 'tool_call_output_item') toolCalls++;
  return { answer: String(result.finalOutput), toolCalls };
}
