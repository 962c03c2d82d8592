import { mkdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { act, ask, sessions } from './browser-session.js';

/** The kitchen's structured final answer: a reply and action cards. */
const answer = (reply: string, cards: unknown[] = []): string =>
  JSON.stringify({ thought: 'done', final: { reply, cards } });
import { ControlledModel, SCREENSHOTS, startWebHarness, type WebHarness } from './web-harness.js';

/** Browser waits under a loaded CI machine: well inside vitest's 20 s, far above the usual 0.1 s. */
const POLL = { timeout: 8_000 };

let h: WebHarness;
const browser = sessions(() => h);

beforeAll(async () => {
  h = await startWebHarness();
  await mkdir(SCREENSHOTS, { recursive: true });
}, 90_000);

afterAll(async () => {
  await browser.closeAll();
  await h?.close();
});

describe('the web UI in Chromium', () => {
  it('signs in, lists the fridge expiring-soon first, adds and uses up an item', async () => {
    const page = await browser.signedIn();
    const rows = page.getByTestId('fridge-item');
    const days = await rows.evaluateAll((els) =>
      els.map((el) => {
        const text = el.textContent ?? '';
        const m = /已过期 (\d+)|今天到期|还剩 (\d+)/.exec(text);
        if (m === null) return Number.POSITIVE_INFINITY;
        if (m[1] !== undefined) return -Number(m[1]);
        return m[2] === undefined ? 0 : Number(m[2]);
      }),
    );
    expect(days.length).toBeGreaterThan(1);
    expect([...days].sort((a, b) => a - b)).toEqual(days);

    await page.locator('#fridge-name').fill('测试豆腐');
    await page.locator('#fridge-qty').fill('2');
    await page.locator('#fridge-unit').fill('块');
    await page.getByRole('button', { name: '添加' }).click();
    const added = rows.filter({ hasText: '测试豆腐' });
    await added.waitFor();
    expect(await added.textContent()).toContain('2 块');
    await page.screenshot({ path: `${SCREENSHOTS}fridge.png`, fullPage: true });
    await page.getByRole('button', { name: '用掉 测试豆腐' }).click();
    await page.getByTestId('use-confirm').click(); // the amount starts at all of it
    await added.waitFor({ state: 'detached' });
  });

  it('a stale edit is refused (412), not saved over another member’s change; adding sends an Idempotency-Key', async () => {
    const page = await browser.signedIn();
    const sent: { method: string; url: string; headers: Record<string, string> }[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/fridge'))
        sent.push({ method: r.method(), url: r.url(), headers: r.headers() });
    });
    await page.locator('#fridge-name').fill('并发白菜');
    await page.locator('#fridge-qty').fill('3');
    await page.locator('#fridge-unit').fill('棵');
    await page.getByRole('button', { name: '添加' }).click();
    const row = page.getByTestId('fridge-item').filter({ hasText: '并发白菜' });
    await row.waitFor();
    const post = sent.find((r) => r.method === 'POST' && new URL(r.url).pathname === '/api/fridge');
    expect(post?.headers['idempotency-key']).toMatch(/^[0-9a-f]{32}$/);

    await page.getByRole('button', { name: '编辑 并发白菜' }).click();
    // Meanwhile 贾妈妈 (same household) changes the item.
    const { session } = await h.services.auth.login({ username: 'mama', password: 'demo-mama' });
    const item = (await h.services.fridge.list(session.principal)).find((i) => i.name === '并发白菜');
    if (item === undefined) throw new Error('item not added');
    await h.services.fridge.update(session.principal, item.id, { quantity: 9 });

    await page.locator(`#edit-${item.id}-qty`).fill('1');
    await page.getByRole('button', { name: '保存' }).click();
    await expect
      .poll(() => page.getByTestId('page-error').getAttribute('data-code'), POLL)
      .toBe('PRECONDITION_FAILED');
    expect(await page.getByTestId('page-error').textContent()).toBe('家人刚改过这一项，请看看最新内容再试。');
    const patch = sent.find((r) => r.method === 'PATCH');
    expect(patch?.headers['if-match']).toBe(`"${item.id}-v1"`);
    expect((await h.services.fridge.get(session.principal, item.id)).quantity).toBe(9); // not overwritten

    // Reloaded, the form has the current version and saves.
    await page.getByRole('button', { name: '取消' }).click();
    await row.filter({ hasText: '9 棵' }).waitFor();
    await page.getByRole('button', { name: '编辑 并发白菜' }).click();
    await page.locator(`#edit-${item.id}-qty`).fill('1');
    await page.getByRole('button', { name: '保存' }).click();
    await row.filter({ hasText: '1 棵' }).waitFor();
    expect(await h.services.fridge.get(session.principal, item.id)).toMatchObject({
      quantity: 1,
      version: 3,
    });
    await h.services.fridge.remove(session.principal, item.id);
  });

  it('streams the assistant’s steps live, then shows the answer; every page carries the CSP', async () => {
    h.model = new ControlledModel([
      { text: act('fridge_items', {}, '先看看冰箱'), delayMs: 50 },
      { text: answer('可以做**番茄炒蛋**。'), delayMs: 800 },
    ]);
    const page = await browser.signedIn();
    const document = await page.request.get('/assistant');
    const csp = document.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    await ask(page, '今晚吃什么？');
    const turn = page.getByTestId('assistant-turn').last();
    // The observation row is on screen while the final answer is still 800 ms away: streamed.
    await turn.locator('.step-observe').first().waitFor({ state: 'attached' }); // folded under "how I got this"
    expect(await turn.getByTestId('answer').count()).toBe(0);
    expect(await turn.locator('.step-act').first().textContent()).toContain('看了看冰箱');
    await turn.getByTestId('answer').waitFor();
    expect(await turn.getByTestId('answer-text').locator('strong').textContent()).toBe('番茄炒蛋');
    await expect
      .poll(() => turn.getByTestId('run-status').getAttribute('data-status'), POLL)
      .toContain('success');
    await page.screenshot({ path: `${SCREENSHOTS}assistant.png`, fullPage: true });
  });

  it('Stop cancels the run: the page says cancelled and the server makes no call after it', async () => {
    h.nutrition.block();
    const model = new ControlledModel([act('nutrition_lookup', { food: '鸡蛋' }), answer('不该出现')]);
    h.model = model;
    try {
      const page = await browser.signedIn();
      await ask(page, '鸡蛋的营养？');
      const turn = page.getByTestId('assistant-turn').last();
      await turn.locator('.step-act').first().waitFor({ state: 'attached' });
      await expect.poll(() => h.nutrition.calls, POLL).toBe(1); // the tool is running, blocked
      await page.getByTestId('stop').click();
      await expect
        .poll(() => turn.getByTestId('run-status').getAttribute('data-status'), POLL)
        .toContain('cancelled');
      expect(model.calls).toBe(1);
    } finally {
      h.nutrition.release();
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(model.calls).toBe(1); // released tool: still no model call after the stop
    expect(h.nutrition.calls).toBe(1);
  });

  it('shows a raw (unparseable) answer as text with its label', async () => {
    h.model = new ControlledModel(['I think {{ tomato eggs, "recipe": [unclosed']);
    const page = await browser.signedIn();
    await ask(page, '随便');
    const turn = page.getByTestId('assistant-turn').last();
    await turn.getByTestId('label-raw').waitFor();
    expect(await turn.getByTestId('answer-text').textContent()).toContain('I think {{ tomato eggs');
  });

  it('never runs markup planted in a recipe name or a model answer', async () => {
    const payload = '<img src=x onerror="window.__pwned=1;alert(1)"><script>window.__pwned=2</script>';
    const login = await h.services.auth.login({ username: 'xiaojia', password: 'demo-xiaojia' });
    await h.services.recipes.create(login.session.principal, {
      name: `番茄${payload}`.slice(0, 80),
      ingredients: [{ name: '番茄', quantity: 1, unit: '个' }],
    });
    h.model = new ControlledModel([
      answer(
        `结果 ${payload} [点我](javascript:window.__pwned=3) [文档](https://203.0.113.9/docs) ![x](http://203.0.113.9/x.png) <a href="javascript:alert(1)">a</a>`,
      ),
    ]);
    const page = await browser.signedIn();
    const offsite: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(h.url) && !r.url().startsWith('blob:')) offsite.push(r.url());
    });
    await page.getByRole('link', { name: '菜谱' }).click();
    const planted = page.getByTestId('recipe').filter({ hasText: 'onerror' });
    await planted.waitFor();
    expect(await planted.locator('img, script').count()).toBe(0);
    await ask(page, '随便');
    const turn = page.getByTestId('assistant-turn').last();
    await turn.getByTestId('answer').waitFor();
    expect(await turn.getByTestId('answer-text').textContent()).toContain('<script>');
    expect(await turn.locator('img, script, iframe').count()).toBe(0);
    expect(await turn.locator('a[href^="javascript"]').count()).toBe(0);
    // Another site's link is text naming its host (issue 16.8; model-links.browser.test.ts).
    expect(await turn.getByTestId('answer-text').locator('a').count()).toBe(0);
    expect(await turn.getByTestId('answer-text').textContent()).toContain('文档 (203.0.113.9)');
    expect(await turn.getByTestId('answer-text').textContent()).toContain('[x]'); // the image's alt, not the image
    await new Promise((r) => setTimeout(r, 200));
    expect(await page.evaluate('globalThis.__pwned')).toBeUndefined();
    expect(page.dialogs).toBe(0);
    expect(offsite).toEqual([]);
  });

  it('falls back to the one-shot JSON answer when streaming is unavailable, and says so', async () => {
    h.model = new ControlledModel([act('fridge_items', {}), answer('JSON 回答')]);
    const page = await browser.signedIn();
    await page.evaluate("localStorage.setItem('kitchen.stream', 'off')");
    const accepts: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/v1/runs')) accepts.push(r.headers()['accept'] ?? '');
    });
    await ask(page, '冰箱里有什么？');
    const turn = page.getByTestId('assistant-turn').last();
    await turn.getByTestId('label-json-fallback').waitFor();
    expect(await turn.getByTestId('answer-text').textContent()).toContain('JSON 回答');
    expect(await turn.locator('.step-observe').count()).toBe(1);
    expect(accepts).toEqual(['application/json']);
  });

  it('renders action cards from the structured answer, provenance stamped by code, demo mode labeled', async () => {
    const reply = {
      reply: '今晚做**番茄炒蛋**。',
      cards: [
        { type: 'recipe', name: '番茄炒蛋', origin: 'suggestion', uses: ['番茄', '鸡蛋'], missing: ['葱'] },
        // The model claims mcp_exact for both; only 鸡蛋 was looked up.
        {
          type: 'nutrition',
          food: '鸡蛋',
          basis: 'per_100g',
          values: { energyKcal: 134.5 },
          provenance: 'mcp_exact',
        },
        { type: 'nutrition', food: '番茄', values: { energyKcal: 18 }, provenance: 'mcp_exact' },
        {
          type: 'meal_plan',
          title: '本周晚餐',
          entries: [
            {
              date: '2026-12-01',
              slot: 'dinner',
              recipeName: '<img src=x onerror="window.__pwned=5">',
              status: 'suggested',
            },
          ],
        },
      ],
    };
    h.model = new ControlledModel(
      [act('nutrition_lookup', { food: '鸡蛋' }), JSON.stringify({ thought: 'done', final: reply })],
      { demo: true },
    );
    try {
      const page = await browser.signedIn();
      await ask(page, '今晚吃什么？');
      const turn = page.getByTestId('assistant-turn').last();
      await turn.getByTestId('cards').waitFor();
      expect(await turn.getByTestId('label-demo').isVisible()).toBe(true);
      expect(await turn.getByTestId('answer-text').locator('strong').textContent()).toBe('番茄炒蛋');
      const recipe = turn.getByTestId('card-recipe');
      expect(await recipe.locator('h4').textContent()).toBe('番茄炒蛋');
      expect(await recipe.locator('.missing').textContent()).toContain('葱');
      expect(await recipe.textContent()).toContain('用到: 番茄、鸡蛋');
      const provenance = await turn
        .getByTestId('provenance')
        .evaluateAll((els) => els.map((e) => e.className));
      expect(provenance).toEqual(['provenance provenance-mcp_exact', 'provenance provenance-llm_estimate']);
      expect(await turn.getByTestId('provenance').allTextContents()).toEqual([
        '与食物成分表精确匹配',
        '助手估算，未核对',
      ]);
      const plan = turn.getByTestId('card-meal_plan');
      expect(await plan.textContent()).toContain('onerror');
      expect(await plan.locator('img').count()).toBe(0);
      expect(await page.evaluate('globalThis.__pwned')).toBeUndefined();
      await page.screenshot({ path: `${SCREENSHOTS}assistant-cards.png`, fullPage: true });
    } finally {
      h.model = new ControlledModel([]);
    }
  });
});
