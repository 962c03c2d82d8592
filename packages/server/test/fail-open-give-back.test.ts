import { afterEach, describe, expect, it } from 'vitest';
import { scriptModel } from 'reins/testing';
import { createReinsServer, memoryLimitStore, type LimitStore, type ReinsServer } from '@reins/server';
import { bearerAuth, final, memoryLogger, writeAs } from './helpers.js';

// README (Quota and rate limit): "Fail open. A quota protects cost; it is not an authorization
// boundary … a rejection … or a missed deadline … lets the request through". And "Running runs
// per principal … a run gives back its slot … when it ends".
// One late answer of the limit store (80 ms once, then healthy again) spent the run's whole
// fail-open budget, after which the run's settlement (release of its slot and hold) was skipped
// — and a release sent early would still land before the late take: the slot stayed taken, and
// the user's next run was refused 429 TOO_MANY_RUNS although nothing of theirs ran (the limit
// failed closed). A give-back is never skipped, and is made again when a late take lands.

let server: ReinsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function onceSlowStore(): LimitStore {
  const inner = memoryLimitStore();
  let slowed = false;
  return {
    ...inner,
    name: 'once-slow',
    acquireSlot: async (...args) => {
      if (!slowed) {
        slowed = true;
        await new Promise((r) => setTimeout(r, 80)); // one late reply (a blip), the command still applies
      }
      return inner.acquireSlot(...args);
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a limit store late once', () => {
  it("does not keep the user's run slot after the run ended (the next run is admitted)", async () => {
    server = createReinsServer({
      agents: { a: { model: scriptModel([final('one'), final('two')]) } },
      authenticate: bearerAuth,
      logger: memoryLogger('silent').logger,
      limitStore: onceSlowStore(),
      quota: { maxConcurrentRuns: 1 },
    });
    const post = (input: string) =>
      server!.app.request('/v1/runs', {
        method: 'POST',
        headers: writeAs('alice'),
        body: JSON.stringify({ agent: 'a', input }),
      });
    const first = await post('first question');
    expect(first.status).toBe(200);
    expect(((await first.json()) as { record: { status: string } }).record.status).toBe('success');
    await sleep(150); // the late slot call has landed; the run has ended and settled

    const second = await post('second question');
    const body = (await second.json()) as { error?: { code: string } };
    expect(body.error?.code).toBeUndefined(); // got TOO_MANY_RUNS: the ended run still holds the slot
    expect(second.status).toBe(200);
  });
});
