import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FIXTURE, bridges, timed } from './helpers.js';

// options.ts: `killGraceMs` — "stdio: SIGTERM → SIGKILL delay when a server is stopped. Default 1 s."
// bridge.close() stops the server through ChildProcessTransport.close(), which used a fixed 1,000 ms
// instead: a server that ignored SIGTERM held close() (and app shutdown) for 1.2 s whatever was set.
describe('close() honours killGraceMs', () => {
  it('a server that ignores SIGTERM is killed killGraceMs after it', async () => {
    const fixture = bridges();
    const stubborn = `process.on('SIGTERM', () => {}); setInterval(() => {}, 1_000); await import(${JSON.stringify(pathToFileURL(FIXTURE).href)});`;
    const bridge = await fixture.connect({
      transport: { kind: 'stdio', command: process.execPath, args: ['--input-type=module', '-e', stubborn] },
      protocol: 'legacy',
      killGraceMs: 50,
    });
    expect(bridge.status().status).toBe('up');
    const pid = bridge.status().pid as number;
    const { ms } = await timed(fixture.closeAll());
    expect(() => process.kill(pid, 0)).toThrow(); // gone
    // stdin grace (200 ms) + killGraceMs (50 ms), with slack for a loaded machine — not 1,200 ms.
    expect(ms).toBeLessThan(700);
  });
});
