// @ts-check
/**
 * Preloaded into the kitchen process by `run.js` (`node --import <this> kitchen.js start`), so
 * the bench measures the server's event-loop delay whatever the server exports. On SIGUSR2 it
 * writes what it saw since the last signal to `KITCHEN_LOAD_LOOP_FILE` (JSON, milliseconds of
 * delay beyond the sampling interval) and starts over. Nothing happens without that variable.
 */
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env['KITCHEN_LOAD_LOOP_FILE'];
const RESOLUTION_MS = 10;

if (file !== undefined && file !== '') {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  /** A sample is the time between two ticks of a 10 ms timer: the delay is what exceeds 10 ms. */
  const delayMs = (/** @type {number} */ ns) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
  process.on('SIGUSR2', () => {
    const stats = {
      samples: histogram.count,
      p50Ms: delayMs(histogram.percentile(50)),
      p99Ms: delayMs(histogram.percentile(99)),
      maxMs: delayMs(histogram.max),
      resolutionMs: RESOLUTION_MS,
    };
    writeFileSync(file, JSON.stringify(stats));
    histogram.reset();
  });
}
