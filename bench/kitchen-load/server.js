// @ts-check
/**
 * `kitchen start` as a child process — what `npm start` runs (`node apps/kitchen/bin/kitchen.js
 * start`), with `loop-monitor.js` preloaded — on port 0, with only the environment given (no
 * model key: the kitchen demo model answers).
 */
import { clearInterval, clearTimeout, setInterval, setTimeout } from 'node:timers';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const KITCHEN_BIN = fileURLToPath(new URL('../../apps/kitchen/bin/kitchen.js', import.meta.url));
const MONITOR = new URL('./loop-monitor.js', import.meta.url).href;
const CLOCK_TICKS_PER_S = 100; // Linux USER_HZ

/** utime + stime of a /proc `stat` file, in ms; NaN without /proc. @param {string} file */
function cpuMsOf(file) {
  try {
    const fields = readFileSync(file, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
  } catch {
    return NaN;
  }
}

/**
 * @param {Record<string, string>} env
 * @param {string} loopFile where the loop monitor writes
 * @param {string[]} [nodeArgs] more `node` options (`--cpu-prof`, another `--import`)
 */
export async function startKitchen(env, loopFile, nodeArgs = []) {
  const child = spawn(process.execPath, ['--import', MONITOR, ...nodeArgs, KITCHEN_BIN, 'start'], {
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '',
      PORT: '0',
      KITCHEN_LOAD_LOOP_FILE: loopFile,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = await new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      const found = /Xiaojia Kitchen on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      if (found !== undefined) {
        clearInterval(timer);
        resolve(found);
      }
    }, 50);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`kitchen start exited early (${code}):\n${output}`));
    });
  });
  // Keep only the tail of what it prints (its logs under load would grow without end).
  child.stdout.removeAllListeners('data');
  child.stderr.removeAllListeners('data');
  let tail = '';
  const keep = (/** @type {Buffer} */ chunk) => (tail = (tail + chunk).slice(-4_000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const pid = /** @type {number} */ (child.pid);
  let stopped = false;
  return {
    url: /** @type {string} */ (url),
    pid,
    output: () => tail,
    /** The server's own CPU time so far (ms), from /proc; NaN elsewhere. */
    cpuMs: () => cpuMsOf(`/proc/${pid}/stat`),
    /** Its main thread's alone (the one running the event loop; PGlite may have its own). */
    mainThreadCpuMs: () => cpuMsOf(`/proc/${pid}/task/${pid}/stat`),
    /**
     * The event-loop delay since the last call (ms beyond the monitor's 10 ms sampling), then
     * starts over; undefined when the monitor did not answer.
     * @returns {Promise<{ samples: number, p50Ms: number, p99Ms: number, maxMs: number } | undefined>}
     */
    async loopDelay() {
      rmSync(loopFile, { force: true });
      child.kill('SIGUSR2');
      for (let i = 0; i < 100 && !existsSync(loopFile); i++) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 20)); // written in one call, but be sure it is whole
      try {
        return JSON.parse(readFileSync(loopFile, 'utf8'));
      } catch {
        return undefined;
      }
    },
    /** SIGTERM (a graceful stop), SIGKILL after 15 s. */
    async stop() {
      if (stopped) return;
      stopped = true;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
