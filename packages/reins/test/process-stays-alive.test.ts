import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

// A run waiting out a retry backoff holds nothing else open in a plain `node` process (the CLI):
// the run's own deadline timers are unref'd so a finished run never keeps the process alive.
// If the backoff's timer were unref'd too, Node would find nothing left to wait for and exit
// mid-run with code 13 (an unsettled top-level await) — what `reins run` did after a provider
// answered 529. Each case runs in a fresh process, since a test runner keeps its own loop alive.

const HOOKS = pathToFileURL(new URL('./support/source-module-hooks.mjs', import.meta.url).pathname).href;
const source = (path: string): string => pathToFileURL(new URL(path, import.meta.url).pathname).href;

/** A child that imports reins from its sources (the hooks transpile them) and runs `body`. */
function childScript(body: string): string {
  return `
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
port1.unref(); // the hooks' reports are not read here, and must not keep the process alive
register(${JSON.stringify(HOOKS)}, { data: { port: port2 }, transferList: [port2] });
${body}
`;
}

function runChild(
  script: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

describe(
  'a plain node process stays alive while a run waits out a retry backoff',
  { timeout: 60_000 },
  () => {
    it('a read-only tool that fails once with SERVICE_UNAVAILABLE is retried, and the run ends success', async () => {
      const { code, out } = await runChild(
        childScript(`
const { runAgent, defineTool, ToolError } = await import(${JSON.stringify(source('../src/index.ts'))});
const { scriptModel } = await import(${JSON.stringify(source('../src/testing.ts'))});
const { z } = await import('zod');
let calls = 0;
const flaky = defineTool({
  name: 'flaky',
  description: 'fails once, then answers',
  input: z.object({}),
  readOnly: true,
  run: () => {
    if (calls++ === 0) throw new ToolError('SERVICE_UNAVAILABLE', 'busy, try again');
    return { value: 42 };
  },
});
const model = scriptModel([
  JSON.stringify({ thought: 't', action: 'flaky', input: {} }),
  JSON.stringify({ thought: 'd', final: 'the value is 42' }),
]);
const record = await runAgent({ query: 'q', model, tools: [flaky] }).result;
process.stdout.write(JSON.stringify({ status: record.status, answer: record.final_answer, calls }));
`),
      );
      expect(code, out).toBe(0);
      expect(JSON.parse(out)).toEqual({ status: 'success', answer: 'the value is 42', calls: 2 });
    });

    it('reins run: the provider answers 529 first; the retry answers and the command exits 0', async () => {
      let requests = 0;
      const server = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          requests++;
          if (requests === 1) {
            res.writeHead(529, { 'content-type': 'application/json' });
            res.end(
              JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'overloaded' } }),
            );
            return;
          }
          const text = JSON.stringify({ thought: 't', final: 'hello after a retry' });
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              content: [{ type: 'text', text }],
              usage: { input_tokens: 3, output_tokens: 2 },
            }),
          );
        });
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const { code, out } = await runChild(
        childScript(`
const { main } = await import(${JSON.stringify(source('../src/cli/main.ts'))});
process.exitCode = await main(['run', '-q', 'hi', '--json']);
`),
        {
          REINS_MODEL: 'anthropic:claude-test',
          ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
          ANTHROPIC_API_KEY: 'sk-test-0000',
          REINS_REASONING_CACHE: 'off',
        },
      );
      expect(code, out).toBe(0);
      expect(requests).toBe(2);
      expect(out).toContain('hello after a retry');
    });
  },
);
