// @ts-check
/**
 * The scripted model as an AI SDK `LanguageModelV4` (the interface `ai@7` calls; Mastra takes
 * the same object). A plain object rather than `MockLanguageModelV4` from `ai/test`, which
 * records every call's options: this one keeps nothing, like the other frameworks' models.
 */
import { TOOL_NAME, decide } from '../scenario.js';

const USAGE = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

/** @param {{ role: string }[]} prompt */
const toolResultsIn = (prompt) => {
  let n = 0;
  for (const message of prompt) if (message.role === 'tool') n++;
  return n;
};

/**
 * @param {number} k
 * @param {string} [provider]
 */
export function scriptedLanguageModel(k, provider = 'scripted') {
  return {
    specificationVersion: /** @type {const} */ ('v4'),
    provider,
    modelId: `scripted-k${k}`,
    supportedUrls: {},
    /** @param {{ prompt: { role: string }[] }} options */
    async doGenerate(options) {
      const move = await decide(k, toolResultsIn(options.prompt));
      if (move.kind === 'tool') {
        return {
          content: [
            {
              type: /** @type {const} */ ('tool-call'),
              toolCallId: move.callId,
              toolName: TOOL_NAME,
              input: JSON.stringify(move.input),
            },
          ],
          finishReason: { unified: /** @type {const} */ ('tool-calls'), raw: 'tool_calls' },
          usage: USAGE,
          warnings: [],
        };
      }
      return {
        content: [{ type: /** @type {const} */ ('text'), text: move.text }],
        finishReason: { unified: /** @type {const} */ ('stop'), raw: 'stop' },
        usage: USAGE,
        warnings: [],
      };
    },
    async doStream() {
      throw new Error('the scripted model only generates');
    },
  };
}
