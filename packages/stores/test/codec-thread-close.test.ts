import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { threadCodecHost } from '../src/codec-thread.js';

describe('the codec thread of a closed store', () => {
  it('is not started again by a run begun after close (a create that ended after it), whose encode is refused', async () => {
    const started: Worker[] = [];
    const host = threadCodecHost(undefined, 100, (url, options) => {
      const worker = new Worker(url, options);
      started.push(worker);
      return worker;
    });
    host.start('before-close');
    expect(started).toHaveLength(1);
    const exited = new Promise((resolve) => (started[0] as Worker).once('exit', resolve));
    await host.close();
    await exited;
    host.start('after-close');
    expect(started).toHaveLength(1);
    await expect(host.encode('after-close', [])).rejects.toThrow('the codec thread was closed');
    expect(started).toHaveLength(1);
  });
});
