import { execFileSync, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { RunEvent } from 'reins';
import { PG_URL } from './backends.js';

// Real server processes (tests/fixtures/crash-server.mjs over the built packages), for the
// crash tests and the shared mode's multi-process tests.
const FIXTURE = fileURLToPath(new URL('./fixtures/crash-server.mjs', import.meta.url));
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export const act = (action: string, input: Record<string, unknown>): string =>
  JSON.stringify({ thought: `use ${action}`, action, input });
export const final = (text: string): string => JSON.stringify({ thought: 'done', final: text });
export const userHeaders = (user: string) => ({
  authorization: `Bearer user:${user}`,
  'content-type': 'application/json',
});
export const alice = userHeaders('alice');

export interface Child {
  readonly url: string;
  readonly report: { resumed: number; rebuiltPaused: number; interrupted: number; failed: number };
  /** What the process printed so far (stdout and stderr). */
  output(): string;
  kill(): Promise<void>;
  /** SIGTERM (a graceful drain); resolves when the process has exited. */
  terminate(): Promise<void>;
}

/** Every child started, so a failing test still kills its servers (`killAll` in afterEach). */
const children = new Set<ReturnType<typeof spawn>>();

export function killAll(): void {
  for (const child of children) child.kill('SIGKILL');
}

/** The child runs the built packages: build them (incremental) so a stale dist/ cannot hide a bug. */
export function buildPackages(): void {
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  const configs = ['packages/reins', 'packages/server', 'packages/stores'].map((p) =>
    join(ROOT, p, 'tsconfig.build.json'),
  );
  execFileSync(process.execPath, [tsc, '-b', ...configs], { cwd: ROOT, stdio: 'inherit' });
}

export async function startChild(env: Record<string, string>): Promise<Child> {
  const child = spawn(process.execPath, [FIXTURE], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setInterval(() => {
      const found = /READY (\S+) (\{.*\})/.exec(out);
      if (found !== null) {
        clearInterval(timer);
        resolve(found);
      }
    }, 20);
    void exited.then(() => {
      clearInterval(timer);
      reject(new Error(`the server exited early:\n${out}`));
    });
  });
  return {
    url: ready[1] as string,
    report: JSON.parse(ready[2] as string) as Child['report'],
    output: () => out,
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    terminate: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export async function counted(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.split('\n').filter((l) => l !== '');
}

export async function until<T>(
  what: string,
  read: () => Promise<T | undefined> | T | undefined,
  ms = 10_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** SSE frames that are not run events (`reconnect`, `error`), as `{event, data}`. */
export interface OtherFrame {
  readonly event: string;
  readonly data: unknown;
}

/** Reads run events from an SSE response until the server ends it or the process dies. */
export async function readEvents(
  response: Response | undefined,
  seen: RunEvent[],
  others: OtherFrame[] = [],
): Promise<void> {
  if (response?.body == null) return;
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const lines = buffer.slice(0, cut).split('\n');
        buffer = buffer.slice(cut + 2);
        const data = lines.find((l) => l.startsWith('data: '));
        if (data === undefined) continue;
        if (lines.some((l) => l.startsWith('id: '))) seen.push(JSON.parse(data.slice(6)) as RunEvent);
        else {
          const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message';
          others.push({ event, data: JSON.parse(data.slice(6)) as unknown });
        }
      }
    }
  } catch {
    // the process was killed: the stream breaks without a `done`
  }
}

/** Follows `/events` (from `Last-Event-ID` + 1) until the server ends the stream or the process dies. */
export async function follow(
  url: string,
  runId: string,
  seen: RunEvent[],
  lastEventId?: number,
  headers: Record<string, string> = alice,
): Promise<void> {
  const response = await fetch(`${url}/v1/runs/${runId}/events`, {
    headers: {
      ...headers,
      accept: 'text/event-stream',
      ...(lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) }),
    },
  }).catch(() => undefined);
  await readEvents(response, seen);
}

/**
 * Starts a run and keeps its stream open (a client leaving would cancel it): its events go to
 * `seen`; `streamed` settles when the stream ends.
 */
export async function startRun(
  url: string,
  input: string,
  seen: RunEvent[] = [],
  options: { headers?: Record<string, string>; others?: OtherFrame[] } = {},
): Promise<{ runId: string; status: number; streamed: Promise<void> }> {
  const response = await fetch(`${url}/v1/runs`, {
    method: 'POST',
    headers: { ...(options.headers ?? alice), accept: 'text/event-stream' },
    body: JSON.stringify({ agent: 'shop', input }),
  });
  const runId = response.headers.get('x-run-id') ?? '';
  const streamed = response.ok
    ? readEvents(response, seen, options.others)
    : response.text().then(() => undefined);
  return { runId, status: response.status, streamed };
}

export const getRun = async (url: string, runId: string, headers: Record<string, string> = alice) =>
  (await (await fetch(`${url}/v1/runs/${runId}`, { headers })).json()) as Record<string, unknown>;

const schemas: string[] = [];

/** A new PostgreSQL schema for one child cluster (dropped by `dropSchemas`, in afterAll). */
export async function freshSchema(prefix: string): Promise<string> {
  const schema = `${prefix}_${process.pid}_${schemas.length}_${Date.now()}`;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.end();
  schemas.push(schema);
  return schema;
}

export async function dropSchemas(): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  for (const schema of schemas.splice(0)) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
}
