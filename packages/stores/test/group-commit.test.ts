import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../src/group-commit.js';

/** A database error with its SQLSTATE, as pg and PGlite give them. */
const sqlError = (code: string, message: string): Error => Object.assign(new Error(message), { code });

/** A fake statement: refuses (22021) any batch holding a job named 'bad'; records each batch. */
function refusingBad(extra: (jobs: readonly string[]) => Promise<void> = async () => undefined) {
  const statements: string[][] = [];
  const write = async (jobs: readonly string[]): Promise<string[]> => {
    statements.push([...jobs]);
    await extra(jobs);
    if (jobs.includes('bad')) throw sqlError('22021', 'invalid byte sequence for encoding "UTF8": 0x00');
    return jobs.map((job) => `done ${job}`);
  };
  return { statements, write };
}

describe('GroupCommit', () => {
  it('jobs submitted together go as one statement, each with its own result in order', async () => {
    const { statements, write } = refusingBad();
    const commit = new GroupCommit(write);
    const jobs = ['a', 'b', 'c'];
    expect(await Promise.all(jobs.map((job) => commit.submit(job)))).toEqual(['done a', 'done b', 'done c']);
    expect(statements).toEqual([jobs]);
  });

  it('a job the database refuses for its data fails alone, found by halving (about 2·log₂ n statements)', async () => {
    const { statements, write } = refusingBad();
    const commit = new GroupCommit(write);
    const jobs = Array.from({ length: 64 }, (_, i) => (i === 41 ? 'bad' : `j${i}`));
    const outcomes = await Promise.allSettled(jobs.map((job) => commit.submit(job)));
    expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(1);
    expect(outcomes[41]).toMatchObject({ status: 'rejected', reason: { code: '22021' } });
    expect(outcomes[40]).toEqual({ status: 'fulfilled', value: 'done j40' });
    expect(statements.length).toBeLessThanOrEqual(1 + 2 * Math.log2(64));
    expect(statements.flat().filter((job) => job === 'j0')).toHaveLength(2); // the batch, then its half
  });

  it('halving stops at the first error that is not about the data: the rest fail with it at once', async () => {
    let down = false;
    const { statements, write } = refusingBad(async (jobs) => {
      if (down) throw sqlError('08006', 'connection terminated');
      if (jobs.length === 64) down = true; // the database goes away after the first statement
    });
    const commit = new GroupCommit(write);
    const jobs = Array.from({ length: 64 }, (_, i) => (i === 0 ? 'bad' : `j${i}`));
    const outcomes = await Promise.allSettled(jobs.map((job) => commit.submit(job)));
    expect(
      outcomes.every((o) => o.status === 'rejected' && (o.reason as { code: string }).code === '08006'),
    ).toBe(true);
    expect(statements).toHaveLength(2); // the batch, its first half: then no more
  });

  it("a half's results are handed out when it is written, before the next half's statement ends", async () => {
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { write } = refusingBad(async (jobs) => {
      if (jobs.length === 2 && jobs.includes('bad')) await held; // the second half waits
    });
    const commit = new GroupCommit(write);
    const first = commit.submit('a');
    const rest = [commit.submit('b'), commit.submit('c'), commit.submit('bad')];
    expect(await first).toBe('done a'); // the second half is still held
    release();
    const outcomes = await Promise.allSettled(rest);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
  });

  it('at most maxJobs a statement, and one job of a key: the rest wait for the next, in order', async () => {
    const { statements, write } = refusingBad();
    const commit = new GroupCommit(write, { maxJobs: 3, oneJobPer: (job) => job.slice(0, 1) });
    const jobs = ['a1', 'b1', 'a2', 'c1', 'd1', 'a3'];
    expect(await Promise.all(jobs.map((job) => commit.submit(job)))).toEqual(
      jobs.map((job) => `done ${job}`),
    );
    expect(statements).toEqual([['a1', 'b1', 'c1'], ['a2', 'd1'], ['a3']]);
  });

  it('maxJobs must be a whole number of at least 1 (0 would write empty statements forever)', () => {
    const write = async (jobs: readonly string[]) => jobs;
    for (const maxJobs of [0, -1, 1.5, Number.NaN])
      expect(() => new GroupCommit(write, { maxJobs })).toThrow(RangeError);
  });

  it('a statement that answers with the wrong number of results fails every job of it', async () => {
    const commit = new GroupCommit(async (jobs: readonly string[]) => jobs.slice(1));
    const outcomes = await Promise.allSettled([commit.submit('a'), commit.submit('b')]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/1 results for 2 jobs/);
  });
});
