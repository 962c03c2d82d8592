import { Gauge, type Registry } from 'prom-client';
import type { ReasoningCacheLike, RolloutArmStats, RolloutLike } from './server-options.js';

/**
 * `/metrics` series of a composed model stack (`modelStack` from `@reins/models`), read from
 * its stats at each scrape: both sides of each rollout compared (success rate, average steps,
 * model-step latency, windowed error rate, runs), labelled `arm="stable"|"candidate"`, and
 * each reasoning cache's hit rate and lookups.
 */
export function watchModelStack(
  registry: Registry,
  rollouts: Readonly<Record<string, RolloutLike>>,
  caches: Readonly<Record<string, ReasoningCacheLike>>,
): void {
  const registers = [registry];
  const armGauge = (name: string, help: string, read: (arm: RolloutArmStats) => number): void => {
    new Gauge({
      name,
      help,
      labelNames: ['rollout', 'arm'],
      registers,
      collect() {
        for (const [rollout, r] of Object.entries(rollouts)) {
          const arms = r.stats().arms;
          if (arms === undefined) continue;
          this.set({ rollout, arm: 'stable' }, read(arms.stable));
          this.set({ rollout, arm: 'candidate' }, read(arms.candidate));
        }
      },
    });
  };
  if (Object.keys(rollouts).length > 0) {
    armGauge('reins_rollout_runs', 'Runs ended on each side of the rollout.', (a) => a.runs);
    armGauge(
      'reins_rollout_success_rate',
      'Share of ended runs that succeeded, by side.',
      (a) => a.successRate,
    );
    armGauge('reins_rollout_average_steps', 'Model steps per ended run, by side.', (a) => a.averageSteps);
    armGauge(
      'reins_rollout_step_latency_seconds',
      'Mean duration of a model step, by side.',
      (a) => a.averageLatencyMs / 1000,
    );
    armGauge(
      'reins_rollout_window_error_rate',
      "Failed steps (call, parse or tool) among each side's last steps (the window the switch-off compares).",
      (a) => a.errorRate,
    );
  }
  if (Object.keys(caches).length === 0) return;
  new Gauge({
    name: 'reins_reasoning_cache_hit_rate',
    help: 'Reasoning-cache hits / (hits + misses) since start.',
    labelNames: ['cache'],
    registers,
    collect() {
      for (const [cache, c] of Object.entries(caches)) this.set({ cache }, c.stats().hitRate);
    },
  });
  new Gauge({
    name: 'reins_reasoning_cache_lookups',
    help: 'Reasoning-cache lookups since start: hit, miss, or skip (a step offering a tool that is not read-only).',
    labelNames: ['cache', 'outcome'],
    registers,
    collect() {
      for (const [cache, c] of Object.entries(caches)) {
        const { hits, misses, skipped } = c.stats();
        this.set({ cache, outcome: 'hit' }, hits);
        this.set({ cache, outcome: 'miss' }, misses);
        this.set({ cache, outcome: 'skip' }, skipped);
      }
    },
  });
}
