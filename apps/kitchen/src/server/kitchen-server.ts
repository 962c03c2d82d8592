import { Hono } from 'hono';
import { DependencyUnavailableError, type Model } from 'reins';
import {
  createReinsServer,
  type HealthCheck,
  type Logger,
  type QuotaOptions,
  type ReinsServer,
  type ReinsServerOptions,
  type ConversationsOptions,
  type DurableRunsOptions,
  type AllowedHosts,
  type SharedModeOptions,
  type ToolDriftOptions,
  type Tracing,
} from '@reins/server';
import { kitchenAgent } from '../assistant/agent.js';
import type { NutritionLookup } from '../assistant/nutrition-tool.js';
import { createKitchenApp } from '../http/app.js';
import { unavailableResponse } from '../http/errors.js';
import { useSecurityGuards } from '../http/security-guards.js';
import type { KitchenServices } from '../services/kitchen-services.js';
import { kitchenAuthenticate } from './authenticate.js';
import { dbCheck } from './db-check.js';

export interface KitchenServerOptions {
  readonly services: KitchenServices;
  readonly model: Model;
  /** Why this model (e.g. "no model key: demo"), shown in `/health`. */
  readonly modelReason?: string;
  /** The model stack's rollout and reasoning cache (`modelStack(...).serverOptions`), for `/metrics`. */
  readonly rollouts?: ReinsServerOptions['rollouts'];
  readonly reasoningCaches?: ReinsServerOptions['reasoningCaches'];
  readonly nutrition: NutritionLookup;
  /** The nutrition MCP server's health (`mcpHealthCheck(bridge)`). */
  readonly nutritionHealth?: HealthCheck;
  /** Redis for the quota counters (`REDIS_URL`); absent: in-process. */
  readonly redis?: string;
  /** The prefix of the runtime's Redis keys and channels (`REINS_REDIS_PREFIX`; default `reins:`). */
  readonly redisPrefix?: string;
  readonly quota?: QuotaOptions;
  readonly logger?: Logger;
  /** The nutrition tool's timeout (default 8 000 ms). */
  readonly nutritionTimeoutMs?: number;
  /** Is the nutrition server up? The nutrition breaker's half-open probe (`NutritionConnection.probe`). */
  readonly nutritionProbe?: () => Promise<boolean>;
  /** Durable runs (the app's database): runs survive restarts; absent, they live in this process. */
  readonly durable?: DurableRunsOptions;
  /** Keep each model step's exact (masked) messages with the run (`REINS_RECORD_PROMPTS`, default on). */
  readonly recordPrompts?: boolean;
  /** Where conversations are kept (default: in memory). */
  readonly conversations?: ConversationsOptions;
  /**
   * `Host` names answered besides the loopback names (`REINS_ALLOWED_HOSTS`); any other gets
   * 421 `MISDIRECTED_REQUEST` on every path (DNS rebinding). `'any'`: no check.
   */
  readonly allowedHosts?: AllowedHosts;
  /**
   * Origins whose pages may change things here besides the server's own
   * (`REINS_ALLOWED_ORIGINS`): any other origin's POST, PUT, PATCH or DELETE under `/api` and
   * `/v1` gets 403 `CROSS_ORIGIN`; one without `Content-Type: application/json` gets 415.
   */
  readonly allowedOrigins?: readonly string[];
  /** Reverse proxies in front whose `X-Forwarded-For` the login backoff believes (`REINS_TRUST_PROXY`; default 0). */
  readonly trustProxy?: number;
  /**
   * The shared mode (`REINS_MODE=shared`): this process is an `api` instance (the app; runs are
   * queued), a `worker` (runs only: it answers `/health` and `/metrics`, nothing else) or `all`.
   */
  readonly shared?: SharedModeOptions;
  /**
   * On SIGTERM (`reins.drain()`), how long requests being answered and runs under way may take
   * to finish before the runs still going are stopped (`REINS_DRAIN_GRACE_MS`; default 10 000).
   */
  readonly drainGraceMs?: number;
  /**
   * How often `/health`'s checks (db, nutrition, store, redis …) run in the background
   * (`REINS_HEALTH_INTERVAL_MS`; default 5 000): `/health` answers from their last results.
   */
  readonly healthIntervalMs?: number;
  /**
   * The periodic tool definition drift check (`kitchenToolDrift`: the assistant's tools and the
   * nutrition server's against `tools.approved.json`); absent: no check.
   */
  readonly toolDrift?: ToolDriftOptions;
  /**
   * Adds routes after the API, e.g. the web UI's static files at `/` (the web app owns that
   * code). Routes it adds under `/api`, `/v1`, `/health` or `/metrics` are never reached.
   */
  readonly extend?: (app: Hono) => void;
  /** The runs' tracer (`startTracingFromEnv(env).serverOptions`); absent: spans are not exported. */
  readonly tracing?: Tracing['serverOptions'];
}

export interface KitchenServer {
  /** The one app: `/api/*` (REST), `/v1/*` (the assistant), `/health`, `/health/live`, `/metrics`. */
  readonly app: Hono;
  readonly reins: ReinsServer;
  close(): Promise<void>;
}

/**
 * The whole kitchen on one origin: the REST API under `/api`, the assistant (`@reins/server`,
 * agent `kitchen`, authenticated by the kitchen session) under `/v1`, and one `/health` (db,
 * nutrition server, redis, model; `degraded` when one is down, 503 `unavailable` when the
 * database is) and `/metrics`.
 */
export function createKitchenServer(options: KitchenServerOptions): KitchenServer {
  const { services } = options;
  const checks: Record<string, HealthCheck> = {
    db: dbCheck(services.env.db),
    nutrition: options.nutritionHealth ?? (() => ({ status: 'disabled', detail: 'no nutrition server' })),
    model: () => ({
      status: 'up',
      name: options.model.name,
      demo: options.model.demo === true,
      ...(options.modelReason === undefined ? {} : { detail: options.modelReason }),
    }),
  };
  const assistant = kitchenAgent(services, {
    model: options.model,
    nutrition: options.nutrition,
    ...(options.nutritionTimeoutMs === undefined ? {} : { nutritionTimeoutMs: options.nutritionTimeoutMs }),
    ...(options.nutritionProbe === undefined ? {} : { nutritionProbe: options.nutritionProbe }),
  });
  const reins = createReinsServer({
    // The same tools, model and cards as a Plan-and-Execute agent too (the playground's "plan").
    agents: { kitchen: assistant, 'kitchen-plan': { ...assistant, kind: 'plan' } },
    authenticate: kitchenAuthenticate(services.auth),
    healthChecks: checks,
    // Without its database the kitchen serves nothing: `/health` answers 503 while it is down.
    requiredHealthChecks: ['db'],
    ...(options.rollouts === undefined ? {} : { rollouts: options.rollouts }),
    ...(options.reasoningCaches === undefined ? {} : { reasoningCaches: options.reasoningCaches }),
    ...(options.redis === undefined ? {} : { redis: options.redis }),
    ...(options.redisPrefix === undefined ? {} : { redisPrefix: options.redisPrefix }),
    ...(options.quota === undefined ? {} : { quota: options.quota }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.durable === undefined ? {} : { durable: options.durable }),
    ...(options.recordPrompts === undefined ? {} : { recordPrompts: options.recordPrompts }),
    ...(options.conversations === undefined ? {} : { conversations: options.conversations }),
    ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
    ...(options.allowedOrigins === undefined ? {} : { allowedOrigins: options.allowedOrigins }),
    ...(options.shared === undefined ? {} : { shared: options.shared }),
    ...(options.toolDrift === undefined ? {} : { toolDrift: options.toolDrift }),
    ...options.tracing,
    limits: {
      ...(options.drainGraceMs === undefined ? {} : { drainGraceMs: options.drainGraceMs }),
      ...(options.healthIntervalMs === undefined ? {} : { healthIntervalMs: options.healthIntervalMs }),
    },
  });
  const logger = options.logger;
  const api = createKitchenApp({
    services,
    ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
    ...(options.allowedOrigins === undefined ? {} : { allowedOrigins: options.allowedOrigins }),
    ...(options.trustProxy === undefined ? {} : { trustProxy: options.trustProxy }),
    ...(logger === undefined
      ? {}
      : { reportError: (error: unknown) => logger.error({ err: error }, 'kitchen api error') }),
  });

  const app = new Hono();
  // A bug in a route `extend` added: a JSON 500 like the APIs' (with the headers), logged.
  app.onError((error, c) => {
    if (error instanceof DependencyUnavailableError) return unavailableResponse(c, error);
    if (logger === undefined) console.error(error);
    else logger.error({ err: error, path: c.req.path }, 'unhandled error');
    return c.json({ error: { code: 'INTERNAL', message: 'internal error' } }, 500);
  });
  // Every response of the origin (the page, its files, `extend`'s routes too) gets the headers.
  useSecurityGuards(app, options.allowedHosts);
  // On SIGTERM: new requests get 503, the ones being answered (REST writes too) finish.
  app.use('*', reins.requests.middleware);
  const toReins = (c: { req: { raw: Request }; env: unknown }) => reins.app.fetch(c.req.raw, c.env);
  app.get('/health', toReins);
  app.get('/health/live', toReins); // liveness: from memory, answered while draining too
  app.get('/metrics', toReins);
  // A worker of the shared mode executes runs: it serves neither the app nor the assistant.
  if (options.shared?.role !== 'worker') {
    app.all('/v1/*', toReins);
    app.all('/api/*', (c) => api.fetch(c.req.raw, c.env));
    options.extend?.(app);
  }
  return { app, reins, close: () => reins.close() };
}
