import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { openPgliteDb } from '../src/db/pglite-db.js';
import { KITCHEN_DEMO_NOTICE } from '../src/assistant/demo/write-answer.js';
import { pgliteTemplate } from './backends.js';

const KITCHEN_BIN = fileURLToPath(new URL('../bin/kitchen.js', import.meta.url));

it('`npm start` (kitchen start): one process, seeded, demo model, nutrition child, /api + /v1 + /health', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'kitchen-start-'));
  // A migrated directory to start from (initdb takes seconds); `start` seeds it.
  await (await openPgliteDb({ dataDir, loadDataDir: await pgliteTemplate() })).close();
  const env: Record<string, string> = { PATH: process.env['PATH'] ?? '', PORT: '0', REINS_DATA_DIR: dataDir };
  const child = spawn(process.execPath, [KITCHEN_BIN, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const found = /Xiaojia Kitchen on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
        if (found !== undefined && out.includes('nainai')) {
          clearInterval(timer);
          resolve(found);
        }
      }, 50);
      void exited.then(() => {
        clearInterval(timer);
        reject(new Error(`exited early:\n${out}`));
      });
    });
    expect(out).toContain('demo-xiaojia'); // demo logins, embedded default only
    expect(out).toContain('kitchen-demo');
    const login = await fetch(`${url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'xiaojia', password: 'demo-xiaojia' }),
    });
    const { token } = (await login.json()) as { token: string };
    const run = await fetch(`${url}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ agent: 'kitchen', input: '鸡蛋的营养成分是多少？' }),
    });
    const { events } = (await run.json()) as { events: { type: string; text?: string; data?: unknown }[] };
    const message = events.find((e) => e.type === 'message');
    expect(message?.text).toContain(KITCHEN_DEMO_NOTICE.zh);
    expect(JSON.stringify(message?.data)).toContain('mcp_exact'); // the real nutrition child answered
    const health = (await (await fetch(`${url}/health`)).json()) as {
      status: string;
      checks: Record<string, { status: string }>;
    };
    expect(health.status).toBe('ok');
    expect(health.checks['nutrition']?.status).toBe('up');
    expect(health.checks['db']?.status).toBe('up');
    expect((await fetch(`${url}/metrics`)).status).toBe(200);
  } finally {
    child.kill('SIGTERM');
    await exited;
    await rm(dataDir, { recursive: true, force: true });
  }
}, 60_000);

it('`npm run ask`: the assistant for a demo user, each step printed, then the answer and its cards', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'kitchen-ask-'));
  await (await openPgliteDb({ dataDir, loadDataDir: await pgliteTemplate() })).close();
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    out: (l: string) => out.push(l),
    err: (l: string) => err.push(l),
    env: { REINS_DATA_DIR: dataDir },
  };
  try {
    expect(await main(['ask', '--user', 'laowang', '这周吃什么？有什么快过期的？'], io)).toBe(0);
    const text = out.join('\n');
    // Each call printed when it starts and when it is observed; the reads run side by side, so
    // their lines interleave in any order.
    for (const tool of ['fridge_items', 'search_recipes', 'meal_plan'])
      expect(text).toMatch(new RegExp(`🔧 ${tool} [\\s\\S]*👀 ${tool} ok`));
    expect(text).toContain(KITCHEN_DEMO_NOTICE.zh);
    expect(text).toContain('鲈鱼'); // 老王家's fridge
    expect(text).not.toContain('嫩豆腐'); // 小贾家's
    expect(text).toContain('[菜谱 recipe]');
    expect(err.join('\n')).toContain('kitchen-demo');
    expect(await main(['ask', '--user', 'nobody', 'hi'], io)).toBe(2);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}, 60_000);
