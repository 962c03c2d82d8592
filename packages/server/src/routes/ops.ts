import { Hono } from 'hono';
import type { HealthMonitor } from '../health-monitor.js';
import type { RequestGate } from '../request-gate.js';
import type { AppEnv, ServerState } from '../server-state.js';

/** Liveness: answered from memory, even while draining (the gate lets it through). */
export const LIVENESS_PATH = '/health/live';

/**
 * `/health/live` (liveness: 200 `{status: "ok", uptimeS, draining}` from memory — no
 * dependency is touched, and a draining process is still alive), `/health` (readiness and
 * dependencies, from the background results of `monitor`: 200 with `status: "ok" | "degraded"`
 * — the server still serves when an optional dependency is down, e.g. the quota fails open —
 * and 503 `unavailable` while a required one is down, e.g. the run store's database) and
 * `/metrics` (prom-client's registry: counters and gauges kept in memory, nothing is asked of a
 * dependency while scraping). None needs authentication: put them behind your network policy.
 */
export function opsRoutes(
  s: ServerState,
  monitor: HealthMonitor,
  startedAt: number,
  requests: RequestGate,
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const uptimeS = (): number => Math.round((s.deps.now() - startedAt) / 1000);
  app.get(LIVENESS_PATH, (c) => c.json({ status: 'ok', uptimeS: uptimeS(), draining: requests.closed }));
  app.get('/health', async (c) => {
    const report = await monitor.report(uptimeS());
    return c.json(report, report.status === 'unavailable' ? 503 : 200);
  });
  app.get('/metrics', async (c) => {
    const registry = s.metrics.registry;
    return c.body(await registry.metrics(), 200, { 'Content-Type': registry.contentType });
  });
  return app;
}
