import type { ToolPolicies } from 'reins';
import type { RolloutLike } from './server-options.js';
import type { Context } from 'hono';
import type { Principal } from 'reins';
import type { ModelHealth } from './health.js';
import type { Logger } from './logging.js';
import type { ServerMetrics } from './metrics.js';
import type { QuotaGuard } from './quota.js';
import type { RunEntry, RunRegistry } from './run-registry.js';
import type { DurableRuns } from './durable-runs.js';
import type { Conversations } from './conversations.js';
import type { SharedApi } from './shared/shared-api.js';
import type { WatchEnv } from './run-watcher.js';
import type { DrainEnding } from './sse-stream.js';
import type { AgentDefinition, AgentFactory, ServerDeps } from './server-options.js';

/** Hono's typing of what the auth middleware puts on the context. */
export interface AppEnv {
  Variables: { principal: Principal };
}

/** Everything the routes share, resolved once from the options. */
export interface ServerState {
  readonly agents: ReadonlyMap<string, AgentDefinition | AgentFactory>;
  readonly registry: RunRegistry;
  /** Durable runs (a run store is configured); absent: runs live in this process only. */
  readonly durable: DurableRuns | undefined;
  /** Shared mode, API side: runs are queued for workers and followed from the store and the bus. */
  readonly shared: SharedApi | undefined;
  /** Aborted when the instance drains (after its grace, embedded): open streams end with `drainEnding`'s frame. */
  readonly draining: AbortSignal;
  /** What a draining instance tells a stream's client: follow the run elsewhere, or it stopped here. */
  readonly drainEnding: DrainEnding;
  /** SSE streams open now (a drain waits for them to have said `reconnect`). */
  readonly streams: { open: number };
  /** Conversations (turns with their task state) and the history a new turn is shown. */
  readonly conversations: Conversations | undefined;
  readonly metrics: ServerMetrics;
  readonly quota: QuotaGuard;
  readonly logger: Logger;
  readonly modelHealth: ModelHealth;
  readonly watch: WatchEnv;
  /** Rollouts shown every run (their error rates come from run events). */
  readonly rollouts: readonly RolloutLike[];
  /** The tools' guards for every run (undefined: the core's default). */
  readonly policies: ToolPolicies | undefined;
  /** Runs keep their prompts unless their agent says otherwise (`ReinsServerOptions.recordPrompts`). */
  readonly recordPrompts: boolean;
  readonly isStopPhrase: (input: string) => boolean;
  readonly clientIp: (c: Context) => string;
  readonly deps: ServerDeps;
  readonly limits: {
    readonly maxBodyBytes: number;
    readonly maxInputChars: number;
    readonly keepAliveMs: number;
    readonly maxStreamLagEvents: number;
    readonly stopWaitMs: number;
    readonly healthDeadlineMs: number;
  };
}

/** The caller's run: held by this process, or read back from the run store; `undefined` for a missing run and for someone else's alike. */
export function findRun(s: ServerState, runId: string, ownerId: string): Promise<RunEntry | undefined> {
  if (s.shared !== undefined) return s.shared.find(s, runId, ownerId);
  return s.durable === undefined
    ? Promise.resolve(s.registry.get(runId, ownerId))
    : s.durable.find(s, runId, ownerId);
}
