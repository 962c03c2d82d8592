import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, memoryBlobStore, runAgent, type BlobStore, type ObserveStep } from 'reins';
import { fileBlobStore } from 'reins/node';
import { scriptModel } from 'reins/testing';
import { act, final } from './helpers.js';

const TEN_MB = 10 * 1024 * 1024;

const bigReport = defineTool({
  name: 'report',
  description: 'a very large report',
  input: z.object({ size: z.number().int() }),
  output: z.object({ rows: z.array(z.string()) }),
  readOnly: true,
  run: ({ size }) => ({
    rows: Array.from({ length: Math.ceil(size / 100) }, (_, i) => `${i}:`.padEnd(100, '菜')),
  }),
});

async function runWith(size: number, blobStore?: BlobStore, limits = {}) {
  const model = scriptModel([act('report', { size }), final('summarized')]);
  const run = runAgent({
    query: 'q',
    model,
    tools: [bigReport],
    ...(blobStore ? { blobStore } : {}),
    limits,
  });
  const record = await run.result;
  const observe = run.events.find((e) => e.type === 'step' && e.phase === 'observe') as ObserveStep;
  return { run, record, model, observation: observe.observation };
}

describe('large results by reference', () => {
  it('a 10 MB result is stored; the observation, log and prompt keep a marked summary and the reference', async () => {
    const store = memoryBlobStore();
    const { run, record, model, observation } = await runWith(TEN_MB, store);
    expect(observation.status).toBe('ok');
    expect(observation.resultRef?.ref).toBe(`blob:${run.runId}/${observation.actId}`);
    expect(observation.resultRef?.bytes).toBeGreaterThan(TEN_MB);
    expect(observation.result).toMatch(/^\[large result: \d+ bytes, stored as blob:/);
    expect(JSON.stringify(record).length).toBeLessThan(20_000);
    const prompt = model.calls[1]?.messages.at(-1)?.content ?? '';
    expect(prompt).toContain('[large result:');
    expect(prompt.length).toBeLessThan(4_200);

    const whole = (await run.readLargeField(observation.resultRef?.ref ?? '')) as { rows: string[] };
    expect(whole.rows).toHaveLength(Math.ceil(TEN_MB / 100));
    expect(whole.rows[5]).toBe('5:'.padEnd(100, '菜'));
  });

  it("a run's handle reads its own results only (runs share the blob store)", async () => {
    const store = memoryBlobStore();
    const first = await runWith(TEN_MB, store);
    const second = await runWith(TEN_MB, store);
    const ref = first.observation.resultRef?.ref ?? '';
    expect(await first.run.readLargeField(ref)).toBeDefined();
    expect(await second.run.readLargeField(ref)).toBeUndefined();
    expect(
      await second.run.readLargeField(`blob:${second.run.runId}/../${first.observation.actId}`),
    ).toBeUndefined();
  });

  it('the threshold counts UTF-8 bytes and is configuration (largeResultBytes)', async () => {
    // ~40 rows of 100 characters, mostly 3-byte: ~12 KB of JSON in UTF-8, ~4 KB in characters.
    expect(
      (await runWith(4_000, memoryBlobStore(), { largeResultBytes: 8_000 })).observation.resultRef,
    ).toBeDefined();
    expect(
      (await runWith(4_000, memoryBlobStore(), { largeResultBytes: 20_000 })).observation.resultRef,
    ).toBeUndefined();
    expect((await runWith(20_000)).observation.resultRef).toBeUndefined(); // ~60 KB: under the default 100 000 bytes
    expect((await runWith(40_000)).observation.resultRef).toBeDefined(); // ~120 KB
  });

  it('a failing store still gives the summary, saying the rest was not kept', async () => {
    const failing: BlobStore = {
      put: async () => {
        throw new Error('disk full');
      },
      get: async () => undefined,
    };
    const { observation, record } = await runWith(200_000, failing);
    expect(observation.status).toBe('ok');
    expect(observation.resultRef).toBeUndefined();
    expect(observation.result).toMatch(/not stored \(disk full\)/);
    expect(record.status).toBe('success');
  });

  it('fileBlobStore keeps blobs as files under its directory, by hashed name', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'reins-blobs-'));
    try {
      const store = fileBlobStore(join(dir, 'blobs'));
      const { run, observation } = await runWith(300_000, store);
      const files = await readdir(join(dir, 'blobs'));
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/^[0-9a-f]{64}\.json$/);
      const whole = (await run.readLargeField(observation.resultRef?.ref ?? '')) as { rows: string[] };
      expect(whole.rows).toHaveLength(3_000);
      expect(await store.get('blob:../../etc/passwd')).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
