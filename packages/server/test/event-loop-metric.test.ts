import { afterEach, expect, it } from 'vitest';
import { scriptModel } from 'reins/testing';
import { final } from './helpers.js';
import { createReinsServer, type ReinsServer } from '@reins/server';

// Issue 17.1: the event-loop delay is a metric, so a loop blocked by synchronous work (an SQL
// statement run in this thread) is visible in /metrics.
let server: ReinsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const delay = (text: string, quantile: string): number => {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`reins_event_loop_delay_seconds{quantile="${quantile}"} `));
  if (line === undefined) throw new Error(`no quantile ${quantile} in:\n${text}`);
  return Number(line.split(' ')[1]);
};
const scrape = async (s: ReinsServer): Promise<string> => (await s.app.request('/metrics')).text();
const block = (ms: number): void => {
  const until = Date.now() + ms;
  while (Date.now() < until); // synchronous work: no timer can run meanwhile
};
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('reins_event_loop_delay_seconds reports a blocked loop, then starts a new interval at each scrape', async () => {
  server = createReinsServer({
    agents: { a: { model: scriptModel([final('x')]), tools: [] } },
    authenticate: () => ({ id: 'u' }),
  });
  const first = await scrape(server);
  expect(first).toContain('# TYPE reins_event_loop_delay_seconds gauge');
  await pause(50);
  block(400);
  await pause(30); // the monitor's next tick records the late one
  const blocked = await scrape(server);
  expect(delay(blocked, '1')).toBeGreaterThanOrEqual(0.3); // the resolution is subtracted, not the block
  expect(delay(blocked, '0.99')).toBeGreaterThanOrEqual(0.3);
  expect(delay(blocked, '0.5')).toBeLessThan(delay(blocked, '1'));
  await pause(100);
  // A new interval: the 400 ms block is not in it (generous: the machine may be busy).
  expect(delay(await scrape(server), '1')).toBeLessThan(0.3);
});
