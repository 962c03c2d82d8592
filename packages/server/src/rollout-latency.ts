import { Histogram, type Registry } from 'prom-client';
import type { RolloutLike } from './server-options.js';

/** Model calls: from a cached or tiny reply (50 ms) to a long reasoning answer (a minute). */
export const ROLLOUT_STEP_BUCKETS: readonly number[] = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60];

/**
 * `reins_rollout_step_duration_seconds{rollout,arm,model}`: every timed model step (`reason`
 * event) of the runs each rollout observes, on the side that answered it — the latency of both
 * sides compared as a distribution (quantiles), not only the mean gauge. Rollouts without
 * `onStep` are skipped. Returns the function that stops listening (at the server's close).
 */
export function watchRolloutLatency(
  registry: Registry,
  rollouts: Readonly<Record<string, RolloutLike>>,
): () => void {
  const listening = Object.entries(rollouts).filter(([, r]) => r.onStep !== undefined);
  if (listening.length === 0) return () => undefined;
  const histogram = new Histogram({
    name: 'reins_rollout_step_duration_seconds',
    help: 'Duration of each model step (reason phase) of a rollout, by side (stable / candidate) and the model that answered.',
    labelNames: ['rollout', 'arm', 'model'],
    buckets: [...ROLLOUT_STEP_BUCKETS],
    registers: [registry],
  });
  const stops: (() => void)[] = [];
  for (const [rollout, r] of listening) {
    const stop = r.onStep?.(({ arm, model, durationMs }) =>
      histogram.observe({ rollout, arm, model }, durationMs / 1000),
    );
    if (stop !== undefined) stops.push(stop);
  }
  return () => {
    for (const stop of stops) stop();
  };
}
