import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { isApiPath, webAssets, WEB_CSP } from '../src/http/web-assets.js';

let root: string;
let outside: string;
let app: Hono;

beforeAll(async () => {
  const base = await mkdtemp(join(tmpdir(), 'web-assets-'));
  root = join(base, 'dist');
  outside = join(base, 'secret.txt');
  await mkdir(join(root, 'assets'), { recursive: true });
  await writeFile(join(root, 'index.html'), '<!doctype html><title>app</title>');
  await writeFile(join(root, 'assets', 'index-abc.js'), 'console.log(1)');
  await writeFile(join(root, 'assets', 'index-abc.css'), 'body{}');
  await writeFile(join(root, 'favicon.svg'), '<svg/>');
  await writeFile(outside, 'do not serve');
  app = new Hono();
  app.use('*', webAssets({ root }));
  app.notFound((c) => c.json({ error: { code: 'NOT_FOUND', message: 'no route' } }, 404));
});

afterAll(async () => {
  await rm(join(root, '..'), { recursive: true, force: true });
});

const html = { accept: 'text/html,application/xhtml+xml' };

describe('webAssets: the built pages under a strict CSP', () => {
  it('serves files with their content types, the CSP and caching by kind', async () => {
    const js = await app.request('/assets/index-abc.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toContain('immutable');
    expect(await js.text()).toBe('console.log(1)');
    expect((await app.request('/assets/index-abc.css')).headers.get('content-type')).toBe(
      'text/css; charset=utf-8',
    );
    expect((await app.request('/favicon.svg')).headers.get('content-type')).toBe('image/svg+xml');
    const index = await app.request('/', { headers: html });
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const csp = index.headers.get('content-security-policy') ?? '';
    expect(csp).toBe(WEB_CSP);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("img-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(index.headers.get('x-content-type-options')).toBe('nosniff');
    const head = await app.request('/assets/index-abc.js', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('answers index.html for page paths (SPA fallback), never for API paths or missing files', async () => {
    for (const path of ['/fridge', '/playground', '/some/deep/page']) {
      const reply = await app.request(path, { headers: html });
      expect(reply.status, path).toBe(200);
      expect(await reply.text()).toContain('<title>app</title>');
    }
    for (const path of [
      '/api/nope',
      '/api',
      '/v1/runs/x',
      '/v1',
      '/health',
      '/metrics',
      '/assets/missing.js',
    ]) {
      const reply = await app.request(path, { headers: html });
      expect(reply.status, path).toBe(404);
      expect(reply.headers.get('content-type'), path).toContain('application/json');
    }
    expect((await app.request('/fridge', { method: 'POST', headers: html })).status).toBe(404);
    expect((await app.request('/fridge', { headers: { accept: 'application/json' } })).status).toBe(404);
  });

  it('never reads outside its root', async () => {
    for (const path of [
      '/..%2fsecret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/%2e%2e%2fsecret.txt',
      '/../secret.txt',
      '/%2e%2e/secret.txt',
      '/assets/%2e%2e/%2e%2e/secret.txt',
      '/%00',
      '/%E0%A4%A',
    ]) {
      const reply = await app.request(path);
      expect(await reply.text(), path).not.toContain('do not serve');
    }
  });

  it('says the UI is not built instead of serving nothing', async () => {
    const bare = new Hono();
    bare.use('*', webAssets({ root: join(root, 'nowhere') }));
    const reply = await bare.request('/fridge', { headers: html });
    expect(reply.status).toBe(503);
    expect(await reply.text()).toContain('npm run build');
  });

  it('isApiPath covers the API prefixes only', () => {
    expect(['/api', '/api/x', '/v1', '/v1/runs', '/health', '/metrics'].every(isApiPath)).toBe(true);
    expect(['/', '/apiary', '/v1x', '/fridge', '/healthy'].some(isApiPath)).toBe(false);
  });
});
