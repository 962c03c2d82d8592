import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalEvent, RunEvent } from 'reins';
import { PG_URL } from './backends.js';
import {
  act,
  alice,
  buildPackages,
  counted,
  dropSchemas,
  final,
  follow,
  freshSchema,
  getRun,
  killAll,
  startChild,
  startRun,
  until,
} from './child-server.js';

// Real processes killed with SIGKILL mid-run and mid-pause, started again on the same storage.

interface Backend {
  readonly name: string;
  env(): Promise<Record<string, string>>;
}

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
    env: async () => ({
      CRASH_BACKEND: 'postgres',
      CRASH_DATA: PG_URL,
      CRASH_SCHEMA: await freshSchema('crash'),
    }),
  },
  {
    name: 'PostgreSQL, events encoded in the codec thread',
    env: async () => ({
      CRASH_BACKEND: 'postgres',
      CRASH_DATA: PG_URL,
      CRASH_SCHEMA: await freshSchema('crash'),
      CRASH_CODEC_THREAD: 'on',
    }),
  },
];

beforeAll(buildPackages, 120_000);

afterEach(killAll);

afterAll(dropSchemas);

for (const backend of BACKENDS) {
  describe(`durable runs across kill -9 [${backend.name}]`, () => {
    it('killed during a pause: restarted, the run is still waiting; approved, it completes; the tool ran once', async () => {
      const env = await backend.env();
      const counter = join(await mkdtemp(join(tmpdir(), 'crash-counter-')), 'executions');
      const script = JSON.stringify([act('approved_order', { item: 'milk' }), final('ordered milk')]);
      const first = await startChild({ ...env, CRASH_SCRIPT: script, CRASH_COUNTER: counter });
      const { runId } = await startRun(first.url, 'order milk');
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
      const { runId } = await startRun(first.url, 'order eggs', seen);
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
      const { runId } = await startRun(first.url, 'order rice');
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
      const { runId } = await startRun(first.url, 'hello');
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
