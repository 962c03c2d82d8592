import type { SharedModeOptions } from './shared/shared-mode.js';
import { type AgentRun, type ToolPolicies } from 'reins';
import type { Tracer } from '@opentelemetry/api';
import type { RunTraceIds } from './run-trace-ids.js';
import type { Context } from 'hono';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import type {
  AnyTool,
  ClarifyOptions,
  DomainValidator,
  Model,
  Principal,
  RunAgentOptions,
  RunDeps,
  RunLimitsInput,
  StopNoticeWriter,
} from 'reins';
import type { LimitStore } from './limit-store.js';
import type { AllowedHosts } from './host-check.js';
import type { HealthCheck } from './health.js';
import type { Logger } from './logging.js';
import type { QuotaOptions } from './quota.js';
import type { DurableRunsOptions } from './durable-runs.js';
import type { ConversationsOptions, TurnAbout } from './conversations.js';
import type { ToolDriftOptions } from './tool-drift.js';

/** What an agent is: its model, tools, limits and role. */
export interface AgentDefinition {
  /** `react` (default): the ReAct loop (`runAgent`); `plan`: plan-and-execute (`runPlanAgent`). */
  readonly kind?: 'react' | 'plan';
  readonly model: Model;
  readonly tools?: readonly AnyTool[];
  /** Overrides of the run limits; `maxSteps: 'auto'` chooses per query (see `autoMaxSteps`). */
  readonly limits?: RunLimitsInput;
  /** Prepended to the system prompt. */
  readonly instructions?: string;
  /**
   * Questions to the user (`clarify` event, `done {awaiting_input}`, answered with `POST
   * /v1/runs/:id/answer`). Plan agents always may ask (these options tune it); ReAct agents
   * ask only with this set.
   */
  readonly clarify?: ClarifyOptions;
  /** ReAct agents: `structured` reasoning (`missing_info` is asked for, never guessed). */
  readonly decisionFormat?: 'plain' | 'structured';
  /** Plan agents: business rules on plan steps (e.g. a whitelist of hospital codes). */
  readonly validators?: readonly DomainValidator[];
  /** Plan agents: steps per plan (default 8) and re-plans per run (default 1). */
  readonly maxPlanSteps?: number;
  readonly maxReplans?: number;
  /**
   * Other models a caller may pick for a run (`POST /v1/runs {model}` by name; listed by
   * `GET /v1/agents`). `model` stays the default.
   */
  readonly models?: Readonly<Record<string, Model>>;
  /** A structured final answer (action cards …): see `AnswerFormat` in `reins`. ReAct agents only (for now). */
  readonly answer?: RunAgentOptions['answer'];
  /**
   * What a finished turn of a conversation was about (which recipe, plan, food, policy), from
   * its record — by code, from checked results; shown to the conversation's next turns.
   */
  readonly turnAbout?: TurnAbout;
  /** The app's words for a run's stop notice (e.g. in the question's language); default: the runtime's. */
  readonly stopNotice?: StopNoticeWriter;
  /** Keep each model step's exact (masked) messages in its `reason` event; default: the server's `recordPrompts`. */
  readonly recordPrompts?: boolean;
}

/** Builds the agent for a caller (e.g. tools bound to the caller's household, a per-tier model). */
export type AgentFactory = (principal: Principal) => AgentDefinition | Promise<AgentDefinition>;

/**
 * Who is calling, from the request (a session cookie, a bearer token, mTLS headers set by a
 * proxy …). `undefined` → 401. The principal is the only source of tenant identity the
 * tools see (`ctx.principal`); nothing in the request body can set it.
 */
export type Authenticate = (request: Request) => Principal | undefined | Promise<Principal | undefined>;

export interface ServerLimits {
  /** Request body bytes; default 65 536 (→ 413). */
  readonly maxBodyBytes?: number;
  /** Characters of `input`; default 8 000 (→ 413). */
  readonly maxInputChars?: number;
  /** SSE keep-alive comment interval; default 15 000 ms. */
  readonly keepAliveMs?: number;
  /** How far a stream may fall behind its run before it is closed; default 1 000 events. */
  readonly maxStreamLagEvents?: number;
  /** Events one run may log before it is cancelled (memory bound); default 5 000. */
  readonly maxEventsPerRun?: number;
  /** Finished runs kept in memory; default 1 000. */
  readonly maxRetainedRuns?: number;
  /** How long finished runs are kept; default 3 600 000 ms. */
  readonly retainMs?: number;
  /** A live run with no client left is cancelled after this long; default 0 (at once). */
  readonly disconnectGraceMs?: number;
  /** How long a stop message waits for the runs it cancels to end; default 2 000 ms. */
  readonly stopWaitMs?: number;
  /** Deadline of each `/health` check; default 1 000 ms. */
  readonly healthDeadlineMs?: number;
  /**
   * How often every `/health` check runs in the background (`/health` answers from the last
   * results, with their `ageMs`; one older than 3 intervals plus `healthDeadlineMs` counts as
   * down); default 5 000 ms.
   */
  readonly healthIntervalMs?: number;
  /**
   * `drain()` without the shared mode: how long requests being answered, open streams and
   * JSON waits may take to finish before the runs still going are stopped (their streams end
   * with a final `done {stopped, interrupted}`); default 10 000.
   */
  readonly drainGraceMs?: number;
}

export interface ServerDeps {
  /** Epoch ms (quota days, retention). */
  now(): number;
  /** Run ids. */
  newId(): string;
  /** Passed to every run (its clock, act ids, timers). */
  run?: Partial<RunDeps>;
}

/** One side of a rollout, compared in `/metrics` (`ArmStats` of `@reins/models`). */
export interface RolloutArmStats {
  readonly runs: number;
  readonly successRate: number;
  readonly averageSteps: number;
  readonly averageLatencyMs: number;
  readonly errorRate: number;
}

/** One timed model step of a rollout, on the side that answered it (`RolloutStep` of `@reins/models`). */
export interface RolloutStepLike {
  readonly arm: 'stable' | 'candidate';
  readonly model: string;
  readonly durationMs: number;
}

/** What the server needs of a rollout: its stats, and to see each run. */
export interface RolloutLike {
  stats(): {
    readonly enabled: boolean;
    readonly errorRate: number;
    readonly candidateSteps: number;
    readonly arms?: { readonly stable: RolloutArmStats; readonly candidate: RolloutArmStats };
  };
  observe(run: AgentRun): Promise<void>;
  /** Each timed model step by side (`reins_rollout_step_duration_seconds`); returns the unsubscribe. */
  onStep?(listener: (step: RolloutStepLike) => void): () => void;
}

/** A reasoning cache's counts (`modelStack(...).cache` of `@reins/models`). */
export interface ReasoningCacheLike {
  stats(): {
    readonly hits: number;
    readonly misses: number;
    readonly skipped: number;
    readonly hitRate: number;
  };
}

export interface ReinsServerOptions {
  readonly agents: Readonly<Record<string, AgentDefinition | AgentFactory>>;
  readonly authenticate: Authenticate;
  /**
   * Shared mode: a Redis client (made like `createRedisClient`: no offline queue) or a URL,
   * for the limits (quota holds, rate limits, running-run slots) and, unless `policies` is
   * given, the tools' circuit breakers. Absent: in-process limits and breakers.
   */
  readonly redis?: Redis | string;
  /** Key prefix in Redis; default `reins:`. */
  readonly redisPrefix?: string;
  /** Overrides the limit store (quota, rate limits, run slots) altogether (tests, other backends). */
  readonly limitStore?: LimitStore;
  readonly quota?: QuotaOptions;
  readonly limits?: ServerLimits;
  readonly logger?: Logger;
  /** Default: `trace.getTracer('@reins/server')` (a no-op until an SDK is registered). */
  readonly tracer?: Tracer;
  /**
   * The id generator of the SDK behind `tracer` (both from `startTracingFromEnv`): each run's
   * trace id is then chosen when it is admitted, stored with it, and its spans use it — after
   * a restart too. Absent: the SDK picks the trace id when the run span starts (shown all the
   * same in the record and the log lines, but not stored for a run rebuilt later).
   */
  readonly traceIds?: RunTraceIds;
  /** Default: a new Registry of the server's own. */
  readonly registry?: Registry;
  /**
   * Gradual rollouts (`gradualRollout` from `@reins/models`) to watch: every run is shown to
   * each (`observe`), and `/metrics` reports `reins_rollout_enabled`,
   * `reins_rollout_error_rate` and `reins_rollout_candidate_steps` by rollout name.
   */
  readonly rollouts?: Readonly<Record<string, RolloutLike>>;
  /**
   * Reasoning caches to report (`modelStack(...).serverOptions` of `@reins/models` gives them,
   * with the rollouts): `reins_reasoning_cache_hit_rate` and `reins_reasoning_cache_lookups`
   * by cache name. A rollout with per-side stats adds `reins_rollout_success_rate`,
   * `…_average_steps`, `…_step_latency_seconds`, `…_window_error_rate` and `…_runs` by `arm`;
   * one with `onStep`, the histogram `reins_rollout_step_duration_seconds` by `arm` and `model`.
   */
  readonly reasoningCaches?: Readonly<Record<string, ReasoningCacheLike>>;
  /**
   * The tools' guards (breakers, caps) for every run the server starts (default: the core's
   * process-wide `defaultToolPolicies`). `/health` lists the breaker of every tool of the
   * static agent definitions (`breakers`), `degraded` while one is open.
   */
  readonly policies?: ToolPolicies;
  /** Extra `/health` checks (MCP servers, breakers, a database …). */
  readonly healthChecks?: Readonly<Record<string, HealthCheck>>;
  /**
   * Checks without which nothing can be served (e.g. the app's database): one of them down makes
   * `/health` answer 503 `unavailable`. `store` is required by itself when `durable` is set.
   */
  readonly requiredHealthChecks?: readonly string[];
  /** Messages that cancel the caller's runs; default `DEFAULT_STOP_PHRASES`. */
  readonly stopPhrases?: readonly string[];
  /**
   * DNS rebinding: the `Host` names the server answers besides this machine's loopback names
   * (`localhost`, `127.0.0.1`, `[::1]`, any port; always allowed), e.g. `['kitchen.example']`
   * (any port) or `['kitchen.example:8443']`. Any other `Host` gets 421 `MISDIRECTED_REQUEST`
   * before routing. `'any'` turns the check off (a proxy in front checks it). Default: none.
   */
  readonly allowedHosts?: AllowedHosts;
  /**
   * Cross-site request forgery: every `/v1` request but GET must send `Content-Type:
   * application/json` (else 415 `UNSUPPORTED_MEDIA_TYPE`) and come from the request's own
   * origin (scheme and `Host`) or one listed here, e.g. `['https://kitchen.example']` (else 403
   * `CROSS_ORIGIN`); see `crossOriginGuard`. A malformed entry throws at construction. Default: none.
   */
  readonly allowedOrigins?: readonly string[];
  /** The client address for the rate limit; default the socket's remote address. */
  readonly clientIp?: (c: Context) => string;
  readonly deps?: Partial<ServerDeps>;
  /**
   * Durable runs: each run's events are stored (before clients see them) and a run survives a
   * restart — read back, answered, cancelled, resumed (see `DurableRuns`). Call
   * `server.recover()` once at start. Absent: runs live in this process only.
   */
  readonly durable?: DurableRunsOptions;
  /**
   * The prompt debugger: each model step's exact messages (masked like observations, with
   * token counts) are kept in its `reason` event, streamed and stored with the run. Default
   * true; an agent's own `recordPrompts` wins.
   */
  readonly recordPrompts?: boolean;
  /**
   * Conversations: `POST /v1/runs {conversationId}` continues one (a new one when omitted,
   * named in `start`); `/v1/conversations` lists, reads and forgets them. Default: in memory.
   */
  readonly conversations?: ConversationsOptions;
  /**
   * Tool definition drift: the definitions in use (the static agents' tools, MCP bridges as
   * `sources`) are compared with the approved set at start-up and every `intervalMs` (default
   * 6 h); `/metrics` gets `reins_tool_definition_drift{tool,kind}` and a count, `/health` a
   * `tools` check (always `up`, with what differs), the log a warning when it changes.
   */
  readonly toolDrift?: ToolDriftOptions;
  /**
   * The shared mode: many API instances and workers over one PostgreSQL (the `durable` store,
   * required) and one Redis (the queue, the bus, the limits and breakers). `role: 'api'`
   * queues runs and serves every run's events; `'worker'` executes runs from the queue (and
   * answers only `/health` and `/metrics`); `'all'` does both. See `docs/scaling.md`.
   */
  readonly shared?: SharedModeOptions;
}
