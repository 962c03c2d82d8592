import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { act, ask, sessions } from './browser-session.js';
import { ControlledModel, startWebHarness, type WebHarness } from './web-harness.js';

/** The kitchen's structured final answer: a reply and no cards. */
const answer = (reply: string): string => JSON.stringify({ thought: 'done', final: { reply, cards: [] } });

/** Browser waits under a loaded CI machine: well inside vitest's 20 s, far above the usual 0.1 s. */
const POLL = { timeout: 8_000 };

let h: WebHarness;
let foreign: Server;
let foreignUrl: string;
const browser = sessions(() => h);

/**
 * The foreign site's pages: a `text/plain` fetch and a `text/plain` form (the two "simple"
 * requests a page may send anywhere without a CORS preflight) starting a run, and a plain form
 * POST to logout. A form's `text/plain` body is `name=value`: the name opens the JSON, the value
 * closes it, so the body parses as a run request.
 */
function foreignPage(path: string | undefined, kitchen: string): string {
  const run = JSON.stringify({ agent: 'kitchen', input: 'foreign fetch' });
  switch (path) {
    case '/fetch':
      return `<!doctype html><title>fetch</title><script>
        fetch(${JSON.stringify(`${kitchen}/v1/runs`)}, {
          method: 'POST', mode: 'no-cors', credentials: 'include',
          headers: { 'content-type': 'text/plain' }, body: ${JSON.stringify(run)},
        }).then(() => { document.title = 'sent'; }, () => { document.title = 'failed'; });
      </script>`;
    case '/run-form':
      return `<!doctype html><title>form</title>
        <form method="POST" enctype="text/plain" action="${kitchen}/v1/runs">
          <input type="hidden" name='{"agent":"kitchen","input":"foreign form' value='"}'>
        </form><script>document.forms[0].submit();</script>`;
    case '/logout-form':
      return `<!doctype html><title>logout</title>
        <form method="POST" action="${kitchen}/api/auth/logout"><input type="hidden" name="x" value="1"></form>
        <script>document.forms[0].submit();</script>`;
    default:
      return '<!doctype html><title>foreign</title>';
  }
}

/**
 * Another site on this machine: a second 127.0.0.1 port is the same *site*, so the kitchen's
 * SameSite=Strict session cookie rides along on its requests — only the origin checks stop them.
 */
beforeAll(async () => {
  h = await startWebHarness();
  foreign = createServer((request, response) => {
    response.setHeader('content-type', 'text/html; charset=utf-8');
    response.end(foreignPage(request.url, h.url));
  });
  await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
  foreignUrl = `http://127.0.0.1:${(foreign.address() as AddressInfo).port}`;
}, 90_000);

afterAll(async () => {
  await browser.closeAll();
  await new Promise<void>((resolve) => foreign.close(() => resolve()));
  await h?.close();
});

/** The signed-in user's conversations, through the API with the page's own session cookie. */
async function conversations(page: Page): Promise<unknown[]> {
  const reply = await page.request.get('/v1/conversations');
  expect(reply.status()).toBe(200);
  return ((await reply.json()) as { conversations: unknown[] }).conversations;
}

/** The session token the app keeps for this tab (what its own requests send as a bearer). */
const tabToken = (page: Page) => page.evaluate<string | null>("sessionStorage.getItem('kitchen.token')"); // runs in the page

describe('cross-origin requests (issue 16.3)', () => {
  it('a page on another 127.0.0.1 port can neither start a run nor log the user out', async () => {
    h.model = new ControlledModel([answer('不该出现')]);
    const page = await browser.signedIn();
    expect(await conversations(page)).toEqual([]);

    // (a) a text/plain fetch (no-cors: no preflight, the cookie rides along)...
    await page.goto(`${foreignUrl}/fetch`);
    await expect.poll(() => page.title(), POLL).toBe('sent');
    // ...and a text/plain form posted to /v1/runs.
    const [formRun] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${h.url}/v1/runs`),
      page.goto(`${foreignUrl}/run-form`),
    ]);
    expect(formRun.status()).toBe(403);
    expect(await formRun.json()).toMatchObject({ error: { code: 'CROSS_ORIGIN' } });
    // (b) a form posted to logout.
    const [logout] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${h.url}/api/auth/logout`),
      page.goto(`${foreignUrl}/logout-form`),
    ]);
    expect(logout.status()).toBe(403);

    // Nothing happened: no run (no conversation, no model call), and the session still works.
    expect(await conversations(page)).toEqual([]);
    expect(h.model instanceof ControlledModel ? h.model.calls : -1).toBe(0);
    expect((await page.request.get('/api/auth/me')).status()).toBe(200);
  });

  it('the app on its own origin still signs in, runs the assistant, stops a run and signs out', async () => {
    h.model = new ControlledModel([answer('可以做**番茄炒蛋**。')]);
    const page = await browser.signedIn();
    const token = await tabToken(page);
    expect(token).not.toBeNull();
    const earlier = (await conversations(page)).length;

    await ask(page, '今晚吃什么？');
    const turn = page.getByTestId('assistant-turn').last();
    await turn.getByTestId('answer').waitFor();
    await expect
      .poll(() => turn.getByTestId('run-status').getAttribute('data-status'), POLL)
      .toContain('success');
    expect(await conversations(page)).toHaveLength(earlier + 1);

    // Stop: the body-less cancel POST is accepted (it sends the JSON content type).
    const lookups = h.nutrition.calls;
    h.nutrition.block();
    h.model = new ControlledModel([act('nutrition_lookup', { food: '鸡蛋' }), answer('不该出现')]);
    try {
      await ask(page, '鸡蛋的营养？');
      const stopped = page.getByTestId('assistant-turn').last();
      await expect.poll(() => h.nutrition.calls, POLL).toBe(lookups + 1); // the tool runs, blocked
      const [cancel] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/cancel')),
        page.getByTestId('stop').click(),
      ]);
      expect(cancel.status()).toBe(200);
      await expect
        .poll(() => stopped.getByTestId('run-status').getAttribute('data-status'), POLL)
        .toContain('cancelled');
    } finally {
      h.nutrition.release();
    }

    // Sign out: the server ends the session (the token is refused), not only the page.
    await page.getByRole('button', { name: /退出|Sign out/ }).click();
    await page.waitForURL('**/login');
    const me = await page.request.get('/api/auth/me', { headers: { authorization: `Bearer ${token}` } });
    expect(me.status()).toBe(401);
  });
});
