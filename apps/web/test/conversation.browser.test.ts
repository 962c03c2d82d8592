import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { kitchenDemoModel } from '@reins/kitchen';
import { ask, sessions, type WatchedPage } from './browser-session.js';
import { SCREENSHOTS, startWebHarness, type WebHarness } from './web-harness.js';

/** Browser waits under a loaded CI machine: well inside vitest's 20 s, far above the usual 0.1 s. */
const POLL = { timeout: 8_000 };

let h: WebHarness;
const browser = sessions(() => h);

beforeAll(async () => {
  h = await startWebHarness();
  h.model = kitchenDemoModel(); // the offline model `npm start` runs without a key
}, 90_000);

afterAll(async () => {
  await browser.closeAll();
  await h?.close();
});

async function answered(page: WatchedPage, question: string): Promise<string> {
  const before = await page.getByTestId('assistant-turn').count();
  await ask(page, question);
  const turn = page.getByTestId('assistant-turn').nth(before);
  await turn.locator('div.run[aria-busy="false"]').waitFor(POLL);
  return (await turn.textContent()) ?? '';
}

/** The recipe cards' titles in `scope`, in order. */
async function recipeCards(scope: Locator): Promise<string[]> {
  return scope.getByTestId('card-recipe').locator('h4').allTextContents();
}

describe('the assistant panel keeps its conversation', () => {
  it('across a reload and a language switch, with its cards; a follow-up is understood; "new conversation" starts afresh', async () => {
    const page = await browser.signedIn('xiaojia');
    await answered(page, '今天晚饭吃什么？');
    const live = await recipeCards(page.getByTestId('assistant-turn').first());
    expect(live.length).toBeGreaterThan(0); // the demo model suggests dishes with recipe cards

    await page.reload();
    await page.locator('nav a[href="/assistant"]').click();
    const earlier = page.getByTestId('earlier-turns');
    await earlier.waitFor(POLL);
    expect(await earlier.textContent()).toContain('今天晚饭吃什么？');
    // The restored answer shows the cards it showed live (kept with the turn on the server).
    expect(await recipeCards(earlier)).toEqual(live);
    // One demo label, as live: the demo model's notice in the stored text is not shown again.
    const restored = earlier.getByTestId('earlier-answer').first();
    expect(await restored.getByTestId('label-demo').count()).toBe(1);
    expect(await restored.textContent()).not.toContain('【演示模式');
    await page.screenshot({ path: `${SCREENSHOTS}conversation-restored.png`, fullPage: true });

    await page.locator('#lang').selectOption('en');
    await page.locator('nav a[href="/assistant"]').click();
    await page.getByTestId('earlier-turns').waitFor(POLL);
    expect(await page.getByTestId('earlier-turns').textContent()).toContain('今天晚饭吃什么？');
    expect(await recipeCards(page.getByTestId('earlier-turns'))).toEqual(live);

    const followUp = await answered(page, '那明天呢？');
    expect(followUp).toContain('接着上一个问题：明天晚饭吃什么？');

    await page.getByTestId('new-conversation').click();
    expect(await page.getByTestId('earlier-turns').count()).toBe(0);
    const fresh = await answered(page, '那明天呢？');
    expect(fresh).not.toContain('接着上一个问题');
  }, 60_000);
});
