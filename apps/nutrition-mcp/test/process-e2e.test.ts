import { spawn, spawnSync } from 'node:child_process';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { beforeAll, describe, expect, it } from 'vitest';
import { binPath, buildApp, isRunning, repoRoot } from './support/build-once.js';
import { exerciseNutritionTools, newClient, type Negotiation } from './support/mcp-client.js';

// The one test file that starts the command: it builds dist/ once for all of them.
beforeAll(buildApp, 120_000);

describe('nutrition MCP over stdio (a child process started with node)', () => {
  it.each<[Negotiation, string]>([
    ['auto', 'modern'],
    ['legacy', 'legacy'],
  ])(
    'serves the tools to a client negotiating "%s" (era %s), and exits when the client closes',
    async (mode, era) => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [binPath, '--stdio'],
        cwd: repoRoot,
        stderr: 'pipe',
      });
      const client = newClient(mode);
      await client.connect(transport);
      const pid = transport.pid;
      expect(pid).not.toBeNull();
      try {
        expect(client.getProtocolEra()).toBe(era);
        await exerciseNutritionTools(client);
      } finally {
        await client.close();
      }
      for (let i = 0; i < 100 && pid !== null && isRunning(pid); i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(pid !== null && isRunning(pid)).toBe(false);
    },
  );
});

describe('the nutrition-mcp command', () => {
  it('exits 2 with the usage on a bad command line', () => {
    const run = spawnSync(process.execPath, [binPath, '--nope'], {
      cwd: repoRoot,
      encoding: 'utf8',
      timeout: 10_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/INVALID_PARAMETER.*\n.*usage/);
  });

  it('--http --port 0 serves /health on 127.0.0.1 and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [binPath, '--http', '--port', '0'], {
      cwd: repoRoot,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, REDIS_URL: '' },
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let stderr = '';
        child.stderr.setEncoding('utf8');
        child.stderr.on('data', (chunk: string) => {
          stderr += chunk;
          const found = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
          if (found?.[1] !== undefined) resolve(found[1]);
        });
        child.once('exit', () => reject(new Error(`exited early: ${stderr}`)));
      });
      expect(await (await fetch(`${url}/health`)).json()).toMatchObject({ status: 'ok', foods: 542 });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.pid !== undefined && isRunning(child.pid)) child.kill('SIGKILL');
    }
  });
});
