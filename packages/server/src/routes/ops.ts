import { Hono } from 'hono';
import type { HealthCheck } from '../health.js';
import { runHealthChecks } from '../health.js';
import type { AppEnv, ServerState } from '../server-state.js';

/**
 * `/health` (readiness and dependencies: 200 with `status: "ok" | "degraded"` — the server
 * still serves when an optional dependency is down, e.g. the quota fails open — and 503
 * `unavailable` while a required one is down, e.g. the run store's database) and `/metrics`.
 * Neither needs authentication: put them behind your network policy.
 */
export function opsRoutes(
  s: ServerState,
  checks: ReadonlyMap<string, HealthCheck>,
  startedAt: number,
  required: ReadonlySet<string> = new Set(),
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/health', async (c) => {
    const all = new Map([...checks, ...s.modelHealth.checks()]);
    const uptimeS = Math.round((s.deps.now() - startedAt) / 1000);
    const report = await runHealthChecks(all, s.limits.healthDeadlineMs, uptimeS, required);
    return c.json(report, report.status === 'unavailable' ? 503 : 200);
  });
  app.get('/metrics', async (c) => {
    const registry = s.metrics.registry;
    return c.body(await registry.metrics(), 200, { 'Content-Type': registry.contentType });
  });
  return app;
}
