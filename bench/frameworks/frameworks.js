// @ts-check
/**
 * The frameworks compared, in table order: the adapter (adapters/<id>.js, run by child.js),
 * the packages whose versions the report prints, and the entry points a user of it imports
 * (for the import-time column). The first two rows are the baselines.
 */
export const FRAMEWORKS = [
  { id: 'reins', label: 'Reins (`runAgent`, await result)', packages: ['reins'], imports: ['reins'] },
  { id: 'hand', label: 'hand-written loop (~40 lines)', packages: [], imports: [] },
  { id: 'ai-sdk', label: 'Vercel AI SDK (`generateText`)', packages: ['ai'], imports: ['ai'] },
  {
    id: 'openai-agents',
    label: 'OpenAI Agents JS (`Runner.run`)',
    packages: ['@openai/agents'],
    imports: ['@openai/agents'],
  },
  {
    id: 'langgraph',
    label: 'LangGraph.js (`createReactAgent`)',
    packages: ['@langchain/langgraph', '@langchain/core'],
    imports: [
      '@langchain/langgraph/prebuilt',
      '@langchain/core/language_models/chat_models',
      '@langchain/core/messages',
      '@langchain/core/tools',
    ],
  },
  {
    id: 'mastra',
    label: 'Mastra (`Agent.generate`)',
    packages: ['@mastra/core'],
    imports: ['@mastra/core/agent', '@mastra/core/tools'],
  },
];
