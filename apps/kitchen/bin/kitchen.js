#!/usr/bin/env node
// Runs the compiled app (built by the root `npm run build`, which `npm ci` runs via `prepare`).
import { main } from '../dist/cli/main.js';

const code = await main(process.argv.slice(2));
if (code !== undefined) process.exitCode = code;
