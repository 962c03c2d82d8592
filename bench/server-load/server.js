// @ts-check
/**
 * The server side of the load benchmark (a child process of run.js): a Reins server whose
 * agent replays a 3-step script (two tool calls, then the answer) with 300–800 ms per model
 * step, mounted in a parent hono app that adds `/bench/stats` (RSS, heap, CPU). Prints its
 * port on the first stdout line. Imports the BUILT package.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout } from 'node:timers';
import { Hono } from 'hono';
import { z } from 'zod';
// SERVER_LOAD_IMPORT: another build of the package (an A/B baseline copied out of dist/).
const { createReinsServer, serve } = /** @type {typeof import('@reins/server')} */ (
  await import(process.env.SERVER_LOAD_IMPORT ?? '@reins/server')
);
import { defineTool, scriptModel } from 'reins';
import { pino } from 'pino';

const minDelay = Number(process.env.MIN_DELAY_MS ?? 300);
const maxDelay = Number(process.env.MAX_DELAY_MS ?? 800);
const delay = () => Math.round(minDelay + Math.random() * (maxDelay - minDelay));

const add = defineTool({
  name: 'add',
  description: 'Add two numbers.',
  input: z.object({ a: z.number(), b: z.number() }),
  output: z.object({ sum: z.number() }),
  readOnly: true,
  run: ({ a, b }) => ({ sum: a + b }),
});

const reins = createReinsServer({
  agents: {
    bench: () => ({
      model: scriptModel([
        { text: JSON.stringify({ thought: 't', action: 'add', input: { a: 1, b: 2 } }), delayMs: delay() },
        { text: JSON.stringify({ thought: 't', action: 'add', input: { a: 3, b: 4 } }), delayMs: delay() },
        { text: JSON.stringify({ thought: 't', final: '10' }), delayMs: delay() },
      ]),
      tools: [add],
    }),
  },
  authenticate: (request) => {
    const id = request.headers.get('x-user');
    return id === null ? undefined : { id };
  },
  // Every limit off: the benchmark's 50 users each hold N / 50 runs at once.
  quota: {
    dailyModelCalls: Infinity,
    ratePerWindow: 1e9,
    userRunsPerMinute: Infinity,
    maxConcurrentRuns: Infinity,
  },
  logger: pino({ level: 'warn' }),
  // Few finished runs kept, so RSS growth is the open streams' cost, not the retained logs'.
  limits: { maxRetainedRuns: 100 },
});

const app = new Hono();
let lastCpu = process.cpuUsage();
let lastAt = performance.now();
app.get('/bench/stats', (c) => {
  const cpu = process.cpuUsage(lastCpu);
  const now = performance.now();
  const cpuPercent = ((cpu.user + cpu.system) / 1000 / (now - lastAt)) * 100;
  lastCpu = process.cpuUsage();
  lastAt = now;
  const mem = process.memoryUsage();
  const total = process.cpuUsage();
  return c.json({ rss: mem.rss, heapUsed: mem.heapUsed, cpuPercent, cpuUs: total.user + total.system });
});
app.post('/bench/gc', (c) => {
  /** @type {{ gc?: () => void }} */ (globalThis).gc?.();
  return c.json({ ok: true });
});
app.route('/', reins.app);

const running = await serve(app, { port: 0, host: '127.0.0.1' });
console.log(String(running.port));
process.on('SIGTERM', () => {
  // Open streams may hold close() up: exit anyway (a --cpu-prof profile is written at exit).
  setTimeout(() => process.exit(0), 2_000).unref();
  void reins
    .close()
    .then(() => running.close())
    .then(() => process.exit(0));
});
