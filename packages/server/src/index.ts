// The public API of `@reins/server`. Every export is a promise.
export { createReinsServer, type ReinsServer } from './create-server.js';
export { serve, type ServeOptions, type RunningServer } from './serve.js';
export { withDirectSse } from './sse-direct.js';
export { RequestGate } from './request-gate.js';
export type { DrainEnding } from './sse-stream.js';
export type {
  ReinsServerOptions,
  AgentDefinition,
  AgentFactory,
  Authenticate,
  ServerLimits,
  ServerDeps,
  RolloutLike,
  RolloutArmStats,
  RolloutStepLike,
  ReasoningCacheLike,
} from './server-options.js';
export {
  securityHeaders,
  SECURITY_HEADERS,
  FRAME_ANCESTORS_CSP,
  type SecurityHeadersOptions,
} from './security-headers.js';
export {
  hostCheck,
  hostAllowed,
  parseAllowedHosts,
  LOOPBACK_HOSTS,
  type AllowedHosts,
} from './host-check.js';
export {
  crossOriginGuard,
  normalizeOrigin,
  parseAllowedOrigins,
  type CrossOriginOptions,
} from './cross-origin.js';
export { ApiError, type ApiErrorCode, type ApiErrorBody } from './http-error.js';
export { badCharacter, findBadText, printable, type BadText } from './request-text.js';
export { routeParams } from './refuse-bad-text.js';
export type { RunOptions } from './run-options.js';
export type { AgentListing } from './routes/agents.js';
export { memoryCounterStore, type CounterStore, type WindowCount } from './counter-store.js';
export { redisCounterStore, createRedisClient, NON_QUEUEING_REDIS_OPTIONS } from './redis-counter-store.js';
export {
  memoryLimitStore,
  type LimitStore,
  type Hold,
  type Reserved,
  type SlotTaken,
} from './limit-store.js';
export { redisLimitStore } from './redis-limit-store.js';
export { redisBreakerStore, type RedisBreakerOptions } from './redis-breaker-store.js';
export {
  QuotaGuard,
  type CheckBudget,
  queryHash,
  type QuotaOptions,
  type Admission,
  type LimitCode,
  type FailOpenOperation,
} from './quota.js';
export { RunHold, type RunBudget } from './run-hold.js';
export { normalizeQuery, normalizedQueryHash, isAnonymous } from './query-key.js';
export { ServerMetrics } from './metrics.js';
export { type HealthCheck, type CheckResult, type HealthReport } from './health.js';
export { HealthMonitor, type HealthMonitorOptions } from './health-monitor.js';
export {
  ToolDriftWatch,
  driftLabel,
  DEFAULT_TOOL_DRIFT_CHECK_MS,
  type ToolDriftOptions,
  type DriftState,
} from './tool-drift.js';
export { DEFAULT_STOP_PHRASES, stopPhraseMatcher } from './stop-phrase.js';
export { defaultLogger, REDACT_PATHS, type Logger } from './logging.js';
export {
  startTracingFromEnv,
  readTracingSettings,
  TracingConfigError,
  type Tracing,
  type TracingSettings,
  type TraceExporterName,
  type StartTracingOptions,
} from './tracing-from-env.js';
export { RunTraceIds } from './run-trace-ids.js';
export { RunRegistry, type RunEntry } from './run-registry.js';
export { RunFeed, isPause, type RunPhase, type FollowUntil, type FeedTiming } from './run-feed.js';
export { runSummary, stoppedRecord, type RunSummary } from './run-summary.js';
export { DurableRuns, type DurableRunsOptions, type RecoveryReport } from './durable-runs.js';
export { StoredRun } from './stored-run.js';
export {
  Conversations,
  DEFAULT_CONVERSATION_TTL_MS,
  DEFAULT_MAX_ANSWER_DATA_BYTES,
  type ConversationsOptions,
  type TurnAbout,
} from './conversations.js';
export { SharedMode, SHARED_ROLES, type SharedModeOptions, type SharedRole } from './shared/shared-mode.js';
export type { RunWorkerOptions } from './shared/run-worker.js';
export type { SharedApiOptions } from './shared/shared-api.js';
