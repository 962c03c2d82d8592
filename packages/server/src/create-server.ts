import { trace } from '@opentelemetry/api';
import { Hono, type Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import {
  DependencyUnavailableError,
  createToolPolicies,
  defaultToolPolicies,
  memoryConversationStore,
} from 'reins';
import { uuidV4Like } from './ids.js';
import { memoryLimitStore, type LimitStore } from './limit-store.js';
import { ModelHealth } from './health.js';
import { ApiError, errorBody, sendError, unavailable } from './http-error.js';
import { defaultLogger, safeHeaders } from './logging.js';
import { hostCheck, LOOPBACK_HOSTS } from './host-check.js';
import { crossOriginGuard } from './cross-origin.js';
import { securityHeaders } from './security-headers.js';
import { ServerMetrics } from './metrics.js';
import { watchModelStack } from './model-metrics.js';
import { watchRolloutLatency } from './rollout-latency.js';
import { QuotaGuard } from './quota.js';
import { createRedisClient } from './redis-counter-store.js';
import { redisLimitStore } from './redis-limit-store.js';
import { redisBreakerStore } from './redis-breaker-store.js';
import { RunRegistry } from './run-registry.js';
import { DurableRuns, type RecoveryReport } from './durable-runs.js';
import { Conversations } from './conversations.js';
import { conversationRoutes } from './routes/conversations.js';
import { refuseBadText } from './refuse-bad-text.js';
import { agentRoutes } from './routes/agents.js';
import { LIVENESS_PATH, opsRoutes } from './routes/ops.js';
import { HealthMonitor } from './health-monitor.js';
import { serverChecks } from './server-checks.js';
import { runRoutes } from './routes/runs.js';
import type { ReinsServerOptions, ServerDeps } from './server-options.js';
import type { AnyTool } from 'reins';
import type { AppEnv, ServerState } from './server-state.js';
import { stopPhraseMatcher } from './stop-phrase.js';
import { SharedMode, type SharedRole } from './shared/shared-mode.js';
import { setMaxListeners } from 'node:events';
import { RequestGate } from './request-gate.js';
import { ToolDriftWatch } from './tool-drift.js';

/** The server: a hono app (mount it anywhere, or `serve` it) and what it holds. */
export interface ReinsServer {
  readonly app: Hono<AppEnv>;
  readonly runs: RunRegistry;
  readonly metrics: ServerMetrics;
  readonly quota: QuotaGuard;
  /** Durable runs (when a run store is configured). */
  readonly durable: DurableRuns | undefined;
  /** The shared mode's parts (queue, bus, API side, worker), when `shared` is configured. */
  readonly shared: SharedMode | undefined;
  /**
   * `/health`'s checks, run in the background every `limits.healthIntervalMs`
   * (`health.report()` is what `/health` answers).
   */
  readonly health: HealthMonitor;
  /** The tool definition drift check (when `toolDrift` is configured): `check()` runs one now. */
  readonly toolDrift: ToolDriftWatch | undefined;
  /**
   * Durable runs, once at start: resumes the runs the store has running (or ends them
   * `interrupted`), rebuilds the paused ones, and sweeps runs past their retention (then daily).
   */
  recover(): Promise<RecoveryReport | undefined>;
  /**
   * The front door of a graceful shutdown: install `requests.middleware` first on an app that
   * mounts this one (the Reins app has it already), so `drain` refuses new requests there too
   * and waits for the ones being answered.
   */
  readonly requests: RequestGate;
  /**
   * Graceful shutdown, before `close`. New requests get 503 (`Connection: close`); requests
   * being answered finish. Embedded (no shared mode): open streams, JSON waits and running
   * runs get `limits.drainGraceMs` (default 10 s) to end; then every stream still open ends
   * with a final `done {stopped, interrupted}` (`resumable` with a run store: the run goes on
   * after the next start) and JSON waits get 503. Shared mode: open streams end at once with a
   * `reconnect` event (the client follows the run on another instance), JSON waits get 503; a
   * worker stops taking jobs and hands back the runs still held after its grace period.
   */
  drain(): Promise<void>;
  /**
   * Closes the Redis client it created (not one it was given). Without a run store, cancels
   * unfinished runs (paused ones too); with one, stops storing and stops them where their
   * stored logs say (nothing runs unrecorded), to be resumed or answered after the next start.
   */
  close(): Promise<void>;
}

/**
 * Builds the Reins server: `GET /v1/agents`, `POST /v1/runs` (SSE or JSON), `GET /v1/runs/:id`,
 * `GET /v1/runs/:id/events` (Last-Event-ID), `POST /v1/runs/:id/cancel`,
 * `POST /v1/runs/:id/approve`, `/health`, `/metrics`. Everything run-related is derived
 * from the runs' events.
 */
export function createReinsServer(options: ReinsServerOptions): ReinsServer {
  const deps: ServerDeps = { now: Date.now, newId: uuidV4Like, ...options.deps };
  // First: a malformed allowed origin throws before anything (a Redis client) is opened.
  const sameOriginWrites = crossOriginGuard({ allowedOrigins: options.allowedOrigins ?? [] });
  const logger = options.logger ?? defaultLogger();
  const metrics = new ServerMetrics(options.registry);
  const rollouts = Object.values(options.rollouts ?? {});
  if (rollouts.length > 0) metrics.watchRollouts(options.rollouts ?? {});
  watchModelStack(metrics.registry, options.rollouts ?? {}, options.reasoningCaches ?? {});
  const stopRolloutLatency = watchRolloutLatency(metrics.registry, options.rollouts ?? {});
  const limits = options.limits ?? {};

  if (options.shared !== undefined && options.durable === undefined) {
    throw new Error('shared mode needs a durable run store shared by every instance (options.durable)');
  }
  // Shared mode: the limits and breakers are shared too (the same Redis unless told otherwise).
  const redisOption = options.redis ?? options.shared?.redisUrl;
  const ownRedis =
    typeof redisOption === 'string'
      ? createRedisClient(redisOption, (error) => logger.debug({ err: error.message }, 'redis client error'))
      : undefined;
  const redis = ownRedis ?? (typeof redisOption === 'object' ? redisOption : undefined);
  const store: LimitStore =
    options.limitStore ??
    (redis === undefined
      ? memoryLimitStore({ now: deps.now })
      : redisLimitStore(redis, { prefix: options.redisPrefix ?? 'reins:' }));
  const quota = new QuotaGuard(store, options.quota ?? {}, deps.now, (operation, reason) => {
    metrics.quotaFailOpen.inc({ operation });
    if (reason.startsWith('skipped')) return; // counted; the late check before it was logged
    logger.warn(
      { operation, store: store.name, reason },
      'quota store failed or was late: request allowed (fail open)',
    );
  });

  // Shared mode: unless the app brings its own policies, the tools' breakers live in Redis too.
  const policies =
    options.policies ??
    (redis === undefined
      ? undefined
      : createToolPolicies({
          breakers: redisBreakerStore(redis, {
            prefix: options.redisPrefix ?? 'reins:',
            deadlineMs: options.quota?.deadlineMs ?? 50,
            onFailOpen: (operation, reason) => {
              metrics.quotaFailOpen.inc({ operation });
              logger.warn(
                { operation, reason },
                'breaker store failed or was late: call allowed (fail open)',
              );
            },
          }),
        }));

  const agents = new Map(Object.entries(options.agents));
  const modelHealth = new ModelHealth(
    [...agents.values()].flatMap((a) => (typeof a === 'function' ? [] : [a.model.name])),
  );
  const registry = new RunRegistry({
    now: deps.now,
    ...pick(limits, ['maxRetainedRuns', 'retainMs', 'disconnectGraceMs']),
  });
  const durable =
    options.durable === undefined ? undefined : new DurableRuns(options.durable, logger, metrics);
  const draining = new AbortController();
  setMaxListeners(0, draining.signal); // one listener per open stream
  const requests = new RequestGate({ exempt: [LIVENESS_PATH] });
  const conversations = new Conversations(
    options.conversations ?? { store: memoryConversationStore() },
    logger,
  );
  const shareState: { shared: SharedMode | undefined } = { shared: undefined };
  const state: ServerState = {
    agents,
    registry,
    durable,
    get shared() {
      return shareState.shared?.api;
    },
    draining: draining.signal,
    drainEnding:
      options.shared !== undefined
        ? { kind: 'reconnect' }
        : { kind: 'interrupted', resumable: durable !== undefined && options.durable?.resume !== false },
    streams: { open: 0 },
    conversations,
    metrics,
    quota,
    logger,
    modelHealth,
    watch: {
      metrics,
      tracer: options.tracer ?? trace.getTracer('@reins/server'),
      traceIds: options.traceIds,
      logger,
      modelHealth,
      maxEventsPerRun: limits.maxEventsPerRun ?? 5_000,
    },
    rollouts,
    policies,
    recordPrompts: options.recordPrompts !== false,
    isStopPhrase: stopPhraseMatcher(options.stopPhrases),
    clientIp: options.clientIp ?? socketAddress,
    deps,
    limits: {
      maxBodyBytes: limits.maxBodyBytes ?? 65_536,
      maxInputChars: limits.maxInputChars ?? 8_000,
      keepAliveMs: limits.keepAliveMs ?? 15_000,
      maxStreamLagEvents: limits.maxStreamLagEvents ?? 1_000,
      stopWaitMs: limits.stopWaitMs ?? 2_000,
      healthDeadlineMs: limits.healthDeadlineMs ?? 1_000,
    },
  };

  const prefix = options.redisPrefix ?? 'reins:';
  const sharedMode =
    options.shared === undefined || durable === undefined
      ? undefined
      : new SharedMode(options.shared, prefix, state, durable, options.shared.instanceId ?? deps.newId());
  shareState.shared = sharedMode;
  if (sharedMode !== undefined) registry.countFollowersWith(sharedMode.bus.followers());
  const role: SharedRole | undefined = sharedMode?.role;

  const toolDrift =
    options.toolDrift === undefined
      ? undefined
      : new ToolDriftWatch(options.toolDrift, staticTools(options.agents), logger, deps.now);
  if (toolDrift !== undefined) metrics.watchToolDrift(() => toolDrift.state);
  const checks = serverChecks({
    durable,
    registry,
    limitStore: redis === undefined && options.limitStore === undefined ? undefined : store,
    agents: options.agents,
    policies: policies ?? defaultToolPolicies,
    shared: sharedMode,
    extra: {
      ...(toolDrift === undefined ? {} : { tools: () => toolDrift.health() }),
      ...options.healthChecks,
    },
  });
  const health = new HealthMonitor({
    checks: () => new Map([...checks, ...modelHealth.checks()]),
    required: new Set([...(durable === undefined ? [] : ['store']), ...(options.requiredHealthChecks ?? [])]),
    intervalMs: limits.healthIntervalMs ?? 5_000,
    deadlineMs: state.limits.healthDeadlineMs,
    now: deps.now,
  });
  health.start();
  toolDrift?.start();

  const app = new Hono<AppEnv>();
  app.onError((thrown, c) => {
    if (thrown instanceof ApiError) return sendError(c, thrown);
    if (thrown instanceof DependencyUnavailableError) {
      // An outage, not a bug: 503 with Retry-After (a run whose row cannot be stored never starts).
      logger.warn({ err: thrown, dependency: thrown.dependency, path: c.req.path }, 'dependency unavailable');
      return sendError(c, unavailable(thrown));
    }
    logger.error({ err: thrown, path: c.req.path }, 'unhandled error');
    return c.json(errorBody('INTERNAL', 'internal error'), 500);
  });
  app.notFound((c) => c.json(errorBody('NOT_FOUND', `no route ${c.req.method} ${c.req.path}`), 404));
  app.use('*', async (c, next) => {
    const started = performance.now();
    await next();
    // Built only when it is written: reading every request's headers costs the busy path.
    if (!logger.isLevelEnabled('debug')) return;
    const line = { method: c.req.method, path: c.req.path, status: c.res.status };
    const ms = Math.round(performance.now() - started);
    logger.debug({ ...line, ms, headers: safeHeaders(c.req.raw.headers) }, 'request');
  });
  // Then the headers, on every response (refusals, errors, SSE); then the Host check, before routing.
  app.use('*', securityHeaders());
  // A draining server refuses new requests (503) and counts the ones it is answering.
  app.use('*', requests.middleware);
  const allowed = options.allowedHosts ?? [];
  app.use('*', hostCheck(allowed === 'any' ? 'any' : [...LOOPBACK_HOSTS, ...allowed]));
  // Cross-site request forgery: what changes something comes from this origin, as JSON (403 / 415).
  app.use('/v1/*', sameOriginWrites);
  app.use('/v1/*', async (c, next) => {
    const principal = await options.authenticate(c.req.raw);
    if (principal === undefined) throw new ApiError(401, 'UNAUTHENTICATED', 'authentication required');
    c.set('principal', principal);
    await next();
  });
  // Path and query parameters and Last-Event-ID with a NUL or another control character: 400.
  app.use('/v1/*', refuseBadText());
  // A worker of the shared mode serves no API (only `/health` and `/metrics`).
  if (role !== 'worker') {
    app.route('/v1/agents', agentRoutes(state));
    app.route('/v1/runs', runRoutes(state));
    app.route('/v1/conversations', conversationRoutes(state));
  }
  app.route('/', opsRoutes(state, health, deps.now(), requests));

  const stopEventLoopMonitor = metrics.monitorEventLoop();
  let sweeper: ReturnType<typeof setInterval> | undefined;
  return {
    app,
    runs: registry,
    metrics,
    quota,
    durable,
    shared: sharedMode,
    requests,
    toolDrift,
    recover: async () => {
      if (durable === undefined) return undefined;
      // Shared mode: nothing is resumed here — a run whose worker died is handed to another
      // worker by the queue's stalled-job check. A worker starts taking jobs now.
      const report =
        sharedMode === undefined
          ? await durable.recover(state)
          : (await sharedMode.start(), { resumed: 0, rebuiltPaused: 0, interrupted: 0, failed: 0 });
      const sweep = (): void => {
        durable.sweep(deps.now()).catch((error: unknown) => logger.warn({ err: error }, 'run sweep failed'));
        conversations.store
          .sweep(deps.now())
          .catch((error: unknown) => logger.warn({ err: error }, 'conversation sweep failed'));
      };
      sweep();
      sweeper ??= setInterval(sweep, 86_400_000);
      sweeper.unref();
      return report;
    },
    drain: async () => {
      requests.close();
      const graceMs = limits.drainGraceMs ?? 10_000;
      // Embedded: the runs live here, so what is under way gets the grace period to finish.
      if (sharedMode === undefined)
        await until(() => requests.inFlight === 0 && state.streams.open === 0, graceMs);
      draining.abort();
      // Streams write their last frame (at most a couple of seconds for a stuck reader).
      const streamsEnded = until(() => state.streams.open === 0, 2_000);
      const answered = requests.whenIdle(graceMs);
      await Promise.all([streamsEnded, answered, sharedMode?.drain()]);
    },
    health,
    close: async () => {
      clearInterval(sweeper);
      toolDrift?.stop();
      stopEventLoopMonitor();
      stopRolloutLatency();
      health.stop();
      if (sharedMode !== undefined) {
        // Streams and JSON waits end without cancelling (the runs are held by workers and go
        // on); then the worker, the subscriptions and the queue close. Nothing is cancelled.
        draining.abort();
        await sharedMode.close();
      } else if (durable === undefined) registry.cancelAll();
      else {
        durable.close(); // first: the runs' cancellations are not stored
        registry.abandonAll();
      }
      if (ownRedis !== undefined) ownRedis.disconnect();
    },
  };
}

/** Resolves once `done()` holds (checked every 10 ms), or after `ms`. */
async function until(done: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}

function socketAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown'; // not on @hono/node-server (e.g. app.request in tests)
  }
}

/** The tools of the static agent definitions (a factory's are known per caller only). */
function staticTools(agents: ReinsServerOptions['agents']): AnyTool[] {
  return Object.values(agents).flatMap((a) => (typeof a === 'function' ? [] : [...(a.tools ?? [])]));
}

function pick<T extends object, K extends keyof T>(from: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (from[key] !== undefined) out[key] = from[key];
  return out;
}
