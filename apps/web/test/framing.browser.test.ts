import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessions } from './browser-session.js';
import { startWebHarness, type WebHarness } from './web-harness.js';

let h: WebHarness;
let foreign: Server;
let foreignUrl: string;
const browser = sessions(() => h);

/**
 * Another site on this machine (a second 127.0.0.1 port: same site, so the kitchen's
 * SameSite=Strict session cookie would ride along) framing the kitchen's data and its page.
 */
beforeAll(async () => {
  h = await startWebHarness();
  foreign = createServer((request, response) => {
    response.setHeader('content-type', 'text/html; charset=utf-8');
    if (request.url === '/own') return void response.end('<!doctype html><p id="own">foreign page</p>');
    response.end(
      `<!doctype html><title>foreign</title>
       <iframe name="own" src="/own"></iframe>
       <iframe name="fridge" src="${h.url}/api/fridge"></iframe>
       <iframe name="page" src="${h.url}/"></iframe>`,
    );
  });
  await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
  foreignUrl = `http://127.0.0.1:${(foreign.address() as AddressInfo).port}/`;
}, 90_000);

afterAll(async () => {
  await browser.closeAll();
  await new Promise<void>((resolve) => foreign.close(() => resolve()));
  await h?.close();
});

describe('framing (issue 16.7)', () => {
  it('a page on another 127.0.0.1 port cannot frame /api/fridge or the kitchen page', async () => {
    const page = await browser.signedIn();
    // The session works: the same context reads the fridge at the top level.
    const direct = await page.request.get('/api/fridge');
    expect(direct.status()).toBe(200);
    const fridgeText = await direct.text();
    expect(fridgeText).toContain('鸡蛋');

    const refusals: string[] = [];
    page.on('console', (message) => {
      if (/frame-ancestors|X-Frame-Options/i.test(message.text())) refusals.push(message.text());
    });
    await page.goto(foreignUrl, { waitUntil: 'load' });
    const frame = (name: string) => {
      const found = page.frame({ name });
      if (found === null) throw new Error(`no frame ${name}`);
      return found;
    };
    // The control: the foreign site's own frame renders, so an empty frame below is a refusal.
    await expect.poll(() => frame('own').content()).toContain('foreign page');
    // Chromium names the framed origin only: one refusal per kitchen frame.
    const kitchenRefusals = () => refusals.filter((r) => r.includes(`'${h.url}/'`)).length;
    await expect.poll(kitchenRefusals, { timeout: 8_000 }).toBe(2);

    // Each kitchen frame holds Chromium's error page instead: nothing of the fridge or the app.
    for (const name of ['fridge', 'page']) {
      const blocked = frame(name);
      const content = await blocked.content().catch(() => '');
      expect({
        name,
        url: blocked.url(),
        fridge: content.includes('鸡蛋'),
        app: content.includes('/assets/'),
      }).toEqual({ name, url: 'chrome-error://chromewebdata/', fridge: false, app: false });
    }
  });
});
