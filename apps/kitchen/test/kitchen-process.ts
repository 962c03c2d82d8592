import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// `node apps/kitchen/bin/kitchen.js …` as a real process (the built dist/: `npm run build` first).
export const KITCHEN_BIN = fileURLToPath(new URL('../bin/kitchen.js', import.meta.url));

export interface KitchenProcess {
  readonly url: string;
  readonly pid: number;
  output(): string;
  /** Sends `signal` (default SIGTERM) and resolves with the exit code once the process is gone. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const running = new Set<ChildProcess>();

/** Kills every process still running (afterEach / afterAll), so a failed test leaves none behind. */
export function killKitchens(): void {
  for (const child of running) child.kill('SIGKILL');
}

function spawnKitchen(args: readonly string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [KITCHEN_BIN, ...args], {
    env: { PATH: process.env['PATH'] ?? '', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  return { child, exited, output: () => out };
}

/** `kitchen start` (or another long-running command); resolves once it prints its URL. */
export async function startKitchenProcess(
  env: Record<string, string>,
  args: readonly string[] = ['start'],
): Promise<KitchenProcess> {
  const { child, exited, output } = spawnKitchen(args, env);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const found = /Xiaojia Kitchen on (http:\/\/127\.0\.0\.1:\d+)/.exec(output())?.[1];
      if (found !== undefined) {
        clearInterval(timer);
        resolve(found);
      }
    }, 25);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`kitchen ${args.join(' ')} exited early (${code}):\n${output()}`));
    });
  });
  return {
    url,
    pid: child.pid ?? -1,
    output,
    stop: async (signal = 'SIGTERM') => {
      child.kill(signal);
      return exited;
    },
  };
}

/** A command that ends by itself (`kitchen ask …`): its exit code and what it printed. */
export async function runKitchen(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const { exited, output } = spawnKitchen(args, env);
  const code = await exited;
  return { code, output: output() };
}
