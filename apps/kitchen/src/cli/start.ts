import { modelStack } from '@reins/models';
import { serve, startTracingFromEnv, TracingConfigError, type RunningServer } from '@reins/server';
import type { Model } from 'reins';
import { kitchenDemoModel } from '../assistant/demo/kitchen-demo-model.js';
import { ConfigError, describeConfig, type KitchenConfig } from '../config.js';
import { DEMO_USERS } from '../seed/demo-data.js';
import { connectNutrition } from '../server/nutrition-bridge.js';
import { createKitchenServer, type KitchenServerOptions } from '../server/kitchen-server.js';
import { kitchenToolDrift } from '../server/tool-drift.js';
import { webDistDir } from '@reins/web';
import { webAssets } from '../http/web-assets.js';
import type { CliIo } from './io.js';
import { openKitchen } from './open-app.js';
import { assertPortFree, portError } from './port-check.js';
import { sqlConversationStore, sqlRunStore } from '@reins/stores';
import { pgQueryable } from '../db/pg-queryable.js';

export interface RunningApp {
  readonly url: string;
  close(): Promise<void>;
}

/** The kitchen's model: the composed stack, or the kitchen's demo model (offline, labeled). */
export interface KitchenModel {
  readonly model: Model;
  readonly reason: string;
  /** The stack's rollout and reasoning cache, for `/metrics` (none for a demo model). */
  readonly serverOptions: Pick<KitchenServerOptions, 'rollouts' | 'reasoningCaches'>;
  /** Frees what the stack holds (its Redis connection). */
  close(): Promise<void>;
}

/**
 * The configured model: with a provider key, the composed stack (`modelStack`: retries,
 * fallbacks, roles, rollout, reasoning cache); without one, the kitchen's demo model.
 */
export async function kitchenModel(
  env: NodeJS.ProcessEnv,
  log: (line: string) => void = () => undefined,
): Promise<KitchenModel> {
  const chosen = await modelStack(env, { onSwitchOff: log });
  if (chosen.model.demo === true && chosen.model.name === 'demo') {
    return {
      model: kitchenDemoModel(),
      reason: `${chosen.reason}: the kitchen demo model answers (offline, labeled)`,
      serverOptions: {},
      close: () => chosen.close(),
    };
  }
  return {
    model: chosen.model,
    reason: chosen.reason,
    serverOptions: chosen.serverOptions,
    close: () => chosen.close(),
  };
}

/**
 * `npm start`: storage (seeded), the nutrition MCP server as a stdio child, the model (demo
 * unless a key is set), and one server on 127.0.0.1 — REST under `/api`, the assistant under
 * `/v1`, `/health`, `/metrics`. Prints the URL and, on the embedded default, the demo logins.
 */
export async function startApp(
  config: KitchenConfig,
  io: CliIo,
  extra: Pick<KitchenServerOptions, 'extend' | 'logger'> = {},
): Promise<RunningApp> {
  await assertPortFree(config.host, config.port);
  // OTEL_* settings: a malformed one is refused before anything starts.
  const tracing = await startTracingFromEnv(io.env, {
    serviceName: 'xiaojia-kitchen',
    onExportError: io.err,
  }).catch((error: unknown) => {
    throw error instanceof TracingConfigError ? new ConfigError(`${error.message} (${error.code})`) : error;
  });
  // The nutrition server starts while the database opens (in its own thread, the main one is
  // free meanwhile). connectNutrition never throws: a server that does not start is `down`.
  const connecting = connectNutrition({
    redisUrl: config.redisUrl,
    url: config.nutritionMcpUrl,
    token: config.nutritionMcpToken,
  });
  const { db, services, seeded } = await openKitchen(config).catch(async (error: unknown) => {
    await (await connecting).close();
    await tracing.shutdown();
    throw error;
  });
  const nutrition = await connecting;
  let running: RunningServer | undefined;
  let closeKitchen: (() => Promise<void>) | undefined;
  let closeModel: (() => Promise<void>) | undefined;
  try {
    const stack = await kitchenModel(io.env, (line) => io.err(line));
    closeModel = () => stack.close();
    const { model, reason } = stack;
    // Runs, pauses and conversations live in the app's own database (PGlite or PostgreSQL).
    const runStore = await sqlRunStore(pgQueryable(db), { codecThread: config.codecThread });
    closeKitchen = () => runStore.close(); // until the server exists (a failure below closes it too)
    const conversationStore = await sqlConversationStore(pgQueryable(db));
    const kitchen = createKitchenServer({
      durable: { store: runStore, resume: config.resumeRuns, retentionDays: config.runRetentionDays },
      recordPrompts: config.recordPrompts,
      conversations: { store: conversationStore },
      services,
      model,
      modelReason: reason,
      ...stack.serverOptions,
      nutrition: nutrition.lookup,
      nutritionHealth: nutrition.health,
      nutritionProbe: () => nutrition.probe(),
      ...(config.redisUrl === undefined ? {} : { redis: config.redisUrl }),
      ...(config.redisPrefix === undefined ? {} : { redisPrefix: config.redisPrefix }),
      ...(config.shared === undefined || config.redisUrl === undefined
        ? {}
        : { shared: { ...config.shared, redisUrl: config.redisUrl } }),
      allowedHosts: config.allowedHosts,
      allowedOrigins: config.allowedOrigins,
      drainGraceMs: config.drainGraceMs,
      healthIntervalMs: config.healthIntervalMs,
      quota: config.quota,
      trustProxy: config.trustProxy,
      ...(config.toolDriftCheckMs === 0
        ? {}
        : { toolDrift: kitchenToolDrift(config.toolDriftCheckMs, nutrition.bridge) }),
      tracing: tracing.serverOptions,
      // The web UI (apps/web, built by `npm run build`) at `/`, under its strict CSP.
      extend: (app) => app.use('*', webAssets({ root: webDistDir })),
      ...extra,
    });
    closeKitchen = async () => {
      await kitchen.close();
      await runStore.close();
    };
    const recovered = await kitchen.reins.recover();
    running = await serve(kitchen.app, { port: config.port, host: config.host }).catch((error: unknown) => {
      throw portError(error, config.port);
    });
    const url = running.url;
    io.out(
      `Xiaojia Kitchen on ${url}  — open it in a browser (${describeConfig(config)}${seeded ? ', demo data seeded now' : ''})`,
    );
    if (config.shared?.role === 'worker')
      io.out(
        `  worker: takes runs from the queue (${config.shared.concurrency} at once); model: ${model.name}`,
      );
    else
      io.out(
        `  assistant: POST ${url}/v1/runs {"agent":"kitchen","input":"…"}  model: ${model.name} (${reason})`,
      );
    io.out(
      `  nutrition server: ${nutrition.bridge.status().status}; health: ${url}/health; metrics: ${url}/metrics`,
    );
    io.out(`  ${tracing.describe}`);
    if (
      recovered !== undefined &&
      recovered.resumed + recovered.rebuiltPaused + recovered.interrupted + recovered.failed > 0
    )
      io.out(
        `  runs after the restart: ${recovered.resumed} resumed, ${recovered.rebuiltPaused} paused (waiting for their answer), ${recovered.interrupted} interrupted, ${recovered.failed} failed`,
      );
    if (db.backend === 'pglite' && config.seed === 'demo') {
      io.out('Demo logins (embedded default only; change them with `kitchen admin reset-password`):');
      for (const u of DEMO_USERS)
        io.out(`  ${u.username.padEnd(10)} ${u.password.padEnd(15)} ${u.displayName}`);
    }
    const server = running;
    return {
      url,
      close: async () => {
        // Graceful: no new connections (new requests on open ones get 503); requests being
        // answered finish; runs under way get REINS_DRAIN_GRACE_MS, then embedded ones stop
        // (their streams end with `done {interrupted, resumable}`; resumed at the next start),
        // a worker hands its runs back, an API instance's streams get `reconnect`.
        server.server.close();
        await kitchen.reins.drain();
        await kitchen.close();
        await runStore.close(); // its codec thread, once the last events are written
        await server.close();
        await nutrition.close();
        await closeModel?.();
        await db.close();
        await tracing.shutdown(); // the last runs' spans go out
      },
    };
  } catch (error) {
    await running?.close();
    await closeKitchen?.();
    await closeModel?.();
    await nutrition.close();
    await db.close();
    await tracing.shutdown();
    throw error;
  }
}
