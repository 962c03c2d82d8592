import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalEvent, RunEvent } from 'reins';
import { PG_URL } from './backends.js';

// Real processes killed with SIGKILL mid-run and mid-pause, started again on the same storage.
const FIXTURE = fileURLToPath(new URL('./fixtures/crash-server.mjs', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const act = (action: string, input: Record<string, unknown>): string =>
  JSON.stringify({ thought: `use ${action}`, action, input });
const final = (text: string): string => JSON.stringify({ thought: 'done', final: text });
const alice = { authorization: 'Bearer user:alice', 'content-type': 'application/json' };

interface Child {
  readonly url: string;
  readonly report: { resumed: number; rebuiltPaused: number; interrupted: number; failed: number };
  kill(): Promise<void>;
}

/** Every child started, so a failing test still kills its servers (afterEach). */
const children = new Set<ReturnType<typeof spawn>>();

async function startChild(env: Record<string, string>): Promise<Child> {
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
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

async function counted(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.split('\n').filter((l) => l !== '');
}

async function until<T>(
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

/** Reads run events from an SSE response until the server ends it or the process dies. */
async function readEvents(response: Response | undefined, seen: RunEvent[]): Promise<void> {
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
        if (lines.some((l) => l.startsWith('id: ')) && data !== undefined)
          seen.push(JSON.parse(data.slice(6)) as RunEvent);
      }
    }
  } catch {
    // the process was killed: the stream breaks without a `done`
  }
}

/** Follows `/events` (from `Last-Event-ID` + 1) until the server ends the stream or the process dies. */
async function follow(url: string, runId: string, seen: RunEvent[], lastEventId?: number): Promise<void> {
  const response = await fetch(`${url}/v1/runs/${runId}/events`, {
    headers: {
      ...alice,
      accept: 'text/event-stream',
      ...(lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) }),
    },
  }).catch(() => undefined);
  await readEvents(response, seen);
}

/** Starts a run and keeps its stream open (a client leaving would cancel it): its events go to `seen`. */
async function startRun(url: string, input: string, seen: RunEvent[] = []): Promise<string> {
  const response = await fetch(`${url}/v1/runs`, {
    method: 'POST',
    headers: { ...alice, accept: 'text/event-stream' },
    body: JSON.stringify({ agent: 'shop', input }),
  });
  const runId = response.headers.get('x-run-id');
  if (runId === null) throw new Error(`no run id (${response.status})`);
  void readEvents(response, seen);
  return runId;
}

const getRun = async (url: string, runId: string) =>
  (await (await fetch(`${url}/v1/runs/${runId}`, { headers: alice })).json()) as Record<string, unknown>;

interface Backend {
  readonly name: string;
  env(): Promise<Record<string, string>>;
}

const pgSchemas: string[] = [];
const BACKENDS: Backend[] = [
  {
    name: 'PGlite',
    env: async () => ({
      CRASH_BACKEND: 'pglite',
      CRASH_DATA: await mkdtemp(join(tmpdir(), 'crash-pglite-')),
    }),
  },
  {
    name: 'PostgreSQL',
    env: async () => {
      const schema = `crash_${process.pid}_${pgSchemas.length}_${Date.now()}`;
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`CREATE SCHEMA ${schema}`);
      await client.end();
      pgSchemas.push(schema);
      return { CRASH_BACKEND: 'postgres', CRASH_DATA: PG_URL, CRASH_SCHEMA: schema };
    },
  },
];

beforeAll(() => {
  // The child runs the built packages: build them (incremental) so a stale dist/ cannot hide a bug.
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  const configs = ['packages/reins', 'packages/server', 'packages/stores'].map((p) =>
    join(ROOT, p, 'tsconfig.build.json'),
  );
  execFileSync(process.execPath, [tsc, '-b', ...configs], { cwd: ROOT, stdio: 'inherit' });
}, 120_000);

afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
});

afterAll(async () => {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  for (const schema of pgSchemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
});

for (const backend of BACKENDS) {
  describe(`durable runs across kill -9 [${backend.name}]`, () => {
    it('killed during a pause: restarted, the run is still waiting; approved, it completes; the tool ran once', async () => {
      const env = await backend.env();
      const counter = join(await mkdtemp(join(tmpdir(), 'crash-counter-')), 'executions');
      const script = JSON.stringify([act('approved_order', { item: 'milk' }), final('ordered milk')]);
      const first = await startChild({ ...env, CRASH_SCRIPT: script, CRASH_COUNTER: counter });
      const runId = await startRun(first.url, 'order milk');
      await until('the pause', async () =>
        (await getRun(first.url, runId))['status'] === 'awaiting_approval' ? true : undefined,
      );
      await first.kill();

      const second = await startChild({ ...env, CRASH_SCRIPT: script, CRASH_COUNTER: counter });
      try {
        expect(second.report).toMatchObject({ rebuiltPaused: 1, failed: 0 });
        expect(await getRun(second.url, runId)).toMatchObject({ status: 'awaiting_approval' });
        const events: RunEvent[] = [];
        await follow(second.url, runId, events);
        const approval = events.find((e): e is ApprovalEvent => e.type === 'approval') as ApprovalEvent;
        const approved = await fetch(`${second.url}/v1/runs/${runId}/approve`, {
          method: 'POST',
          headers: alice,
          body: JSON.stringify({ actId: approval.actId, inputHash: approval.inputHash, approve: true }),
        });
        expect(approved.status).toBe(200);
        expect(((await approved.json()) as { record: unknown }).record).toMatchObject({
          status: 'success',
          final_answer: 'ordered milk',
        });
        expect(await counted(counter)).toEqual([`approved_order milk ${approval.actId}`]);
      } finally {
        await second.kill();
      }
    }, 60_000);

    it('killed during a model call: resumed at start from its last completed step; the completed order is not placed again', async () => {
      const env = await backend.env();
      const counter = join(await mkdtemp(join(tmpdir(), 'crash-counter-')), 'executions');
      const first = await startChild({
        ...env,
        CRASH_SCRIPT: JSON.stringify([act('place_order', { item: 'eggs' }), 'HANG']),
        CRASH_COUNTER: counter,
      });
      const seen: RunEvent[] = [];
      const runId = await startRun(first.url, 'order eggs', seen);
      await until('the order observed and the model asked again', () =>
        seen.some((e) => e.type === 'step' && e.phase === 'observe') ? true : undefined,
      );
      await first.kill();
      expect(seen.some((e) => e.type === 'done')).toBe(false); // the stream broke without a `done`

      const second = await startChild({
        ...env,
        CRASH_SCRIPT: JSON.stringify([act('place_order', { item: 'eggs' }), final('eggs ordered')]),
        CRASH_COUNTER: counter,
      });
      try {
        expect(second.report).toMatchObject({ resumed: 1, failed: 0 });
        const rest: RunEvent[] = [];
        const last = seen.at(-1)?.seq ?? 0;
        await follow(second.url, runId, rest, last);
        expect(rest[0]?.seq).toBe(last + 1);
        expect(rest.at(-1)).toMatchObject({ type: 'done', status: 'success' });
        expect(await getRun(second.url, runId)).toMatchObject({
          status: 'success',
          final_answer: 'eggs ordered',
        });
        expect((await counted(counter)).filter((l) => l.startsWith('place_order'))).toHaveLength(1);
      } finally {
        await second.kill();
      }
    }, 60_000);

    it('killed while an order was being placed: not placed again, the run stops outcome_unknown for a person', async () => {
      const env = await backend.env();
      const counter = join(await mkdtemp(join(tmpdir(), 'crash-counter-')), 'executions');
      const script = JSON.stringify([act('slow_order', { item: 'rice' }), final('rice ordered')]);
      const first = await startChild({ ...env, CRASH_SCRIPT: script, CRASH_COUNTER: counter });
      const runId = await startRun(first.url, 'order rice');
      await until('the order started', async () => ((await counted(counter)).length > 0 ? true : undefined));
      await new Promise((r) => setTimeout(r, 200)); // the act event is stored before the tool starts
      await first.kill();

      const second = await startChild({ ...env, CRASH_SCRIPT: script, CRASH_COUNTER: counter });
      try {
        expect(second.report).toMatchObject({ resumed: 1 });
        const record = await until('the run to stop', async () => {
          const r = await getRun(second.url, runId);
          return r['status'] === 'running' ? undefined : r;
        });
        expect(record).toMatchObject({ status: 'stopped', stop_reason: 'outcome_unknown' });
        expect(String(record['final_answer'])).toMatch(/person should check/);
        const lines = await counted(counter);
        expect(lines.filter((l) => l.startsWith('slow_order started'))).toHaveLength(1);
        expect(lines.filter((l) => l.startsWith('slow_order finished'))).toHaveLength(0);
      } finally {
        await second.kill();
      }
    }, 60_000);

    it('with resuming off, a run killed mid-way ends stopped/interrupted with a notice (it never disappears)', async () => {
      const env = await backend.env();
      const counter = join(await mkdtemp(join(tmpdir(), 'crash-counter-')), 'executions');
      await writeFile(counter, '');
      const first = await startChild({
        ...env,
        CRASH_SCRIPT: JSON.stringify(['HANG']),
        CRASH_COUNTER: counter,
      });
      const runId = await startRun(first.url, 'hello');
      await until('the run to start', async () =>
        (await getRun(first.url, runId))['status'] === 'running' ? true : undefined,
      );
      await first.kill();
      const second = await startChild({
        ...env,
        CRASH_SCRIPT: '[]',
        CRASH_COUNTER: counter,
        CRASH_RESUME: 'off',
      });
      try {
        expect(second.report).toMatchObject({ interrupted: 1, resumed: 0 });
        expect(await getRun(second.url, runId)).toMatchObject({
          status: 'stopped',
          stop_reason: 'interrupted',
        });
      } finally {
        await second.kill();
      }
    }, 60_000);
  });
}
