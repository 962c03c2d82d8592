// Model adapters for Reins. Every adapter honours the `Model` contract: failures are data.
export { openAiCompatible, type OpenAiCompatibleOptions } from './openai-compatible.js';
export { codeForStatus, retryAfterMs } from './http-failure.js';
export { sseData, sseJson, MALFORMED } from './sse-data.js';
export { nodeHttpPost, type HttpPost, type HttpResponse } from './http-post.js';
export { DEFAULT_MAX_MODEL_REPLY_BYTES } from './reply-cap.js';
export { withRetries, type RetryOptions } from './with-retries.js';
export { withFallback, type FallbackOptions } from './with-fallback.js';
export { anthropic, type AnthropicOptions } from './anthropic.js';
export {
  readModelConfig,
  chooseModel,
  ModelConfigError,
  type ModelConfig,
  type ChosenModel,
} from './model-from-env.js';
export { byRole, type RoleModels } from './by-role.js';
export { gradualRollout, type Rollout, type RolloutOptions, type RolloutStats } from './rollout.js';
export {
  withReasoningCache,
  reasoningKey,
  memoryReplyStore,
  redisReplyStore,
  type ReplyStore,
  type ReasoningCacheOptions,
} from './reasoning-cache.js';
