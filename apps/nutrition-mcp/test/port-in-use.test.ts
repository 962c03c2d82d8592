import { createServer, type Server } from 'node:net';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../src/cli/main.js';

// startHttp rejects when the port is taken; main let the rejection out, so the command died
// with an unhandled stack trace instead of saying what failed and exiting 1.
let holder: Server | undefined;
afterEach(() => vi.restoreAllMocks());
afterAll(
  () => new Promise<void>((resolve) => (holder === undefined ? resolve() : holder.close(() => resolve()))),
);

describe('nutrition-mcp --http on a port that is taken', () => {
  it('says so and exits 1', async () => {
    holder = createServer();
    await new Promise<void>((resolve) => holder?.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    const errors: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => void errors.push(String(line)));
    const outcome = await main(['--http', '--port', String(port)], {}).then(
      (code) => ({ code }),
      (thrown: unknown) => ({ thrown: String(thrown) }),
    );
    expect(outcome).toEqual({ code: 1 });
    expect(errors.join('\n')).toMatch(
      new RegExp(`SERVICE_UNAVAILABLE: cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`),
    );
  });
});
