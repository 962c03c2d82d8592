import { Hono } from 'hono';
import type { HealthCheck } from '../health.js';
import { runHealthChecks } from '../health.js';
import type { AppEnv, ServerState } from '../server-state.js';

/**
 * `/health` (liveness and dependencies: 200 with `status: "ok" | "degraded"` — the server
 * still serves when a dependency is down, e.g. the quota fails open) and `/metrics`.
 * Neither needs authentication: put them behind your network policy.
 */
export function opsRoutes(
  s: ServerState,
  checks: ReadonlyMap<string, HealthCheck>,
  startedAt: number,
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/health', async (c) => {
    const all = new Map([...checks, ...s.modelHealth.checks()]);
    const uptimeS = Math.round((s.deps.now() - startedAt) / 1000);
    return c.json(await runHealthChecks(all, s.limits.healthDeadlineMs, uptimeS));
  });
  app.get('/metrics', async (c) => {
    const registry = s.metrics.registry;
    return c.body(await registry.metrics(), 200, { 'Content-Type': registry.contentType });
  });
  return app;
}
