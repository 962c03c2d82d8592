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
  providerModel,
  printableConfig,
  ModelConfigError,
  DEFAULT_TEMPERATURE,
  type ModelConfig,
  type ChosenModel,
} from './model-from-env.js';
export { readStackConfig, type StackConfig } from './stack-config.js';
export { modelStack, type ModelStack, type ModelStackOptions, type CacheStats } from './model-stack.js';
export type { ArmStats } from './rollout-arms.js';
export { byRole, type RoleModels } from './by-role.js';
export {
  gradualRollout,
  type Rollout,
  type RolloutOptions,
  type RolloutStats,
  type RolloutStep,
} from './rollout.js';
export {
  withReasoningCache,
  reasoningKey,
  readOnlyStep,
  memoryReplyStore,
  redisReplyStore,
  type ReplyStore,
  type ReasoningCacheOptions,
} from './reasoning-cache.js';
