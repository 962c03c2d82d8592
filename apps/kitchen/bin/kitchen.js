#!/usr/bin/env node
// Runs the compiled app (built by the root `npm run build`, which `npm ci` runs via `prepare`).
import { clearInterval, setInterval } from 'node:timers';
import { main } from '../dist/cli/main.js';

// Held until the command settles. The database thread is unref'd while idle, and under heavy
// load a start was seen to leave Node's event loop momentarily empty while awaiting: Node then
// exits with 13 ("unsettled top-level await") and prints nothing. A command must end by itself.
const holding = setInterval(() => {}, 60_000);
try {
  const code = await main(process.argv.slice(2));
  if (code !== undefined) process.exitCode = code;
} finally {
  clearInterval(holding);
}
