// @ts-check
/**
 * LangGraph.js `createReactAgent` (from `@langchain/langgraph/prebuilt`) with one LangChain
 * `tool()`; the scripted model is a small `BaseChatModel` subclass that returns tool calls
 * (`FakeListChatModel` cannot) and binds tools by returning itself.
 */
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { z } from 'zod';
import { INSTRUCTIONS, QUERY, TOOL_DESCRIPTION, TOOL_NAME, add, decide, executions } from '../scenario.js';

export const executed = () => executions.count;

const addTool = tool(async (input) => add(input), {
  name: TOOL_NAME,
  description: TOOL_DESCRIPTION,
  schema: z.object({ a: z.number(), b: z.number() }),
});

/** @param {import('@langchain/core/messages').BaseMessage[]} messages */
const toolResultsIn = (messages) => {
  let n = 0;
  for (const message of messages) if (message.getType() === 'tool') n++;
  return n;
};

class ScriptedChatModel extends BaseChatModel {
  /** @param {number} k */
  constructor(k) {
    super({});
    this.k = k;
  }
  /** @override */
  _llmType() {
    return 'scripted';
  }
  /** @override */
  bindTools() {
    return this;
  }
  /**
   * @override
   * @param {import('@langchain/core/messages').BaseMessage[]} messages
   */
  async _generate(messages) {
    const move = await decide(this.k, toolResultsIn(messages));
    const message =
      move.kind === 'tool'
        ? new AIMessage({
            content: '',
            tool_calls: [{ id: move.callId, name: TOOL_NAME, args: move.input, type: 'tool_call' }],
          })
        : new AIMessage({ content: move.text });
    return { generations: [{ text: move.kind === 'final' ? move.text : '', message }] };
  }
}

/** @type {Map<number, ReturnType<typeof createReactAgent>>} */
const agents = new Map();
/** @param {number} k */
const agentFor = (k) => {
  let agent = agents.get(k);
  if (agent === undefined) {
    agent = createReactAgent({ llm: new ScriptedChatModel(k), tools: [addTool], prompt: INSTRUCTIONS });
    agents.set(k, agent);
  }
  return agent;
};

/** @param {number} k @returns {Promise<import('../scenario.js').Outcome>} */
export async function run(k) {
  // Each step is two graph super-steps (agent, tools) and the final answer one more.
  const state = await agentFor(k).invoke(
    { messages: [{ role: 'user', content: QUERY }] },
    { recursionLimit: 2 * k + 1 },
  );
  const messages = state.messages;
  let toolCalls = 0;
  for (const message of messages) if (message.getType() === 'tool') toolCalls++;
  const last = messages[messages.length - 1];
  return {
    answer: typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content),
    toolCalls,
  };
}
