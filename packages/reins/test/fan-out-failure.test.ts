import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolPolicies, defineTool, runAgent } from 'reins';
import { scriptModel } from 'reins/testing';
import { scheduleCalls } from '../src/loop/schedule-calls.js';
import { final } from './helpers.js';

// A throwing metrics hook (onCall) failed the call it reported on; in a step of several calls
// that ended the run while a sibling call ran on (its signal never aborted), and the sibling's
// observation then hit the ended log: "event after done" as an unhandled rejection.
describe('a step of several calls in which one call fails to be observed', () => {
  it('leaves no sibling call running after done, and no unhandled rejection', async () => {
    const slowState = { finished: false, aborted: false, finishedAfterDone: false };
    let runEnded = false;
    const slow = defineTool({
      name: 'slow',
      description: 'a slow lookup',
      input: z.object({}),
      output: z.object({ ok: z.boolean() }),
      readOnly: true,
      run: (_input, ctx) =>
        new Promise<{ ok: boolean }>((resolve) => {
          ctx.signal.addEventListener('abort', () => (slowState.aborted = true));
          setTimeout(() => {
            slowState.finished = true;
            slowState.finishedAfterDone = runEnded;
            resolve({ ok: true });
          }, 50);
        }),
    });
    const fast = defineTool({
      name: 'fast',
      description: 'a fast lookup',
      input: z.object({}),
      output: z.object({ ok: z.boolean() }),
      readOnly: true,
      run: () => ({ ok: true }),
    });
    // A metrics hook that fails (e.g. a metrics client refusing a label) for one tool.
    const policies = createToolPolicies({
      onCall: (report) => {
        if (report.tool === 'fast') throw new Error('metrics backend refused the sample');
      },
    });
    const model = scriptModel([
      JSON.stringify({
        thought: 'both',
        actions: [
          { action: 'slow', input: {} },
          { action: 'fast', input: {} },
        ],
      }),
      final('done'),
    ]);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const run = runAgent({ query: 'look both up', model, tools: [slow, fast], policies });
      const record = await run.result;
      runEnded = true;
      expect(run.events.at(-1)?.type).toBe('done');
      // Whatever the run's status, a call of this run is not left running once it has ended.
      const stillRunning = !slowState.finished && !slowState.aborted;
      await new Promise((resolve) => setTimeout(resolve, 120));
      expect(unhandled.map(String)).toEqual([]);
      expect(stillRunning).toBe(false);
      expect(record.steps.length).toBeGreaterThan(0);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('scheduleCalls when a call fails', () => {
  it('starts nothing more, waits for the calls running, then throws the first failure', async () => {
    const log: string[] = [];
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const slow = (name: string, ms: number) =>
        new Promise<void>((resolve) =>
          setTimeout(() => {
            log.push(`${name} done`);
            resolve();
          }, ms),
        );
      const outcome = scheduleCalls(
        ['a', 'b', 'c', 'd'],
        4,
        () => false,
        () => false,
        (call) => {
          log.push(`${call} started`);
          if (call === 'b') return slow('b', 5).then(() => Promise.reject(new Error('b failed')));
          if (call === 'c') throw new Error('c could not start');
          return slow(call, 40);
        },
      );
      await expect(outcome).rejects.toThrow('c could not start');
      expect(log).toEqual(['a started', 'b started', 'c started', 'b done', 'a done']);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('a metrics hook that throws', () => {
  it('changes nothing about the run: the call is observed ok and the run answers', async () => {
    const tool = defineTool({
      name: 'lookup',
      description: 'a lookup',
      input: z.object({}),
      output: z.object({ ok: z.boolean() }),
      readOnly: true,
      run: () => ({ ok: true }),
    });
    const policies = createToolPolicies({
      onCall: () => {
        throw new Error('metrics backend down');
      },
      onBreaker: () => {
        throw new Error('metrics backend down');
      },
    });
    const model = scriptModel([
      JSON.stringify({ thought: 't', action: 'lookup', input: {} }),
      final('found'),
    ]);
    const record = await runAgent({ query: 'q', model, tools: [tool], policies }).result;
    expect(record.status).toBe('success');
    expect(record.steps.find((step) => step.phase === 'observe')?.detail).toMatchObject({
      observation: { status: 'ok', result: { ok: true } },
    });
  });
});
