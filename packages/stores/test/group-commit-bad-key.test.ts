import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../src/group-commit.js';

describe('a group commit whose oneJobPer throws for one job', () => {
  it('fails only the job whose key cannot be made; the other jobs of the statement are written, and nothing escapes unhandled', async () => {
    let armed = true; // disarmed at the end: before the fix the flush looped on the throwing key
    const escaped: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void escaped.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const commit = new GroupCommit(
      async (jobs: readonly unknown[]) => jobs.map((job) => `done ${String(job)}`),
      {
        // As createBatcher's `wellFormed(run.runId)` does for an id that is not a string.
        oneJobPer: (job) => {
          if (armed && typeof job !== 'string') throw new TypeError('text.replace is not a function');
          return String(job);
        },
      },
    );
    try {
      const jobs: unknown[] = ['a', 42, 'c'];
      const outcomes = Promise.allSettled(jobs.map((job) => commit.submit(job)));
      const within = await Promise.race([
        outcomes.then((o) => o.map((x) => x.status)),
        new Promise<string>((resolve) => setTimeout(() => resolve('still waiting after 1 s'), 1_000)),
      ]);
      expect({ within, escaped: escaped.length }).toEqual({
        within: ['fulfilled', 'rejected', 'fulfilled'],
        escaped: 0,
      });
    } finally {
      armed = false;
      await new Promise((resolve) => setTimeout(resolve, 50));
      process.off('unhandledRejection', onUnhandled);
    }
  });
  it('sends no statement when every job of it had a key that threw', async () => {
    const written: (readonly unknown[])[] = [];
    const commit = new GroupCommit(
      async (jobs: readonly unknown[]) => {
        written.push(jobs);
        return jobs.map(() => 'done');
      },
      {
        oneJobPer: (job) => {
          if (typeof job !== 'string') throw new TypeError('not an id');
          return job;
        },
      },
    );
    await expect(commit.submit(42)).rejects.toThrow('not an id');
    await expect(commit.submit('a')).resolves.toBe('done');
    expect(written).toEqual([['a']]);
  });
});
