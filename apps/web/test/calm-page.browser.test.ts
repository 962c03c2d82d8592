import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { act, ask, sessions } from './browser-session.js';
import { ControlledModel, SCREENSHOTS, startWebHarness, type WebHarness } from './web-harness.js';

/**
 * Issue 19 — "a calm page": what a family saw (English thoughts and tool names before the
 * answer, mixed languages, one-tap deletes, ISO dates, the playground in the menu, a header
 * taking a third of a phone) and what must be there instead.
 */
const POLL = { timeout: 8_000 };

let h: WebHarness;
const browser = sessions(() => h);

beforeAll(async () => {
  h = await startWebHarness();
}, 90_000);

afterAll(async () => {
  await browser.closeAll();
  await h?.close();
});

const DEMO_NOTICE = '【演示模式：没有配置 AI 模型，这条回复由规则根据家里的真实数据生成。】';

describe('a calm page (issue 19)', () => {
  it('the answer and its cards come first, the steps fold under “how I got this” in the page’s words; one demo label; one language', async () => {
    const final = {
      thought: 'The fridge has eggs and tomatoes, so I will suggest tomato eggs.',
      final: {
        reply: `${DEMO_NOTICE}今晚做**番茄炒蛋**。`,
        cards: [{ type: 'nutrition', food: '鸡蛋', values: { energyKcal: 134.5, proteinG: 12.4 } }],
      },
    };
    h.model = new ControlledModel(
      [act('fridge_items', {}, 'I should look in the fridge first'), JSON.stringify(final)],
      { demo: true },
    );
    const page = await browser.signedIn();
    await ask(page, '今晚吃什么？');
    const turn = page.getByTestId('assistant-turn').last();
    await expect.poll(() => turn.getByTestId('run-status').getAttribute('data-status'), POLL).toBe('success');

    // The answer is above the steps, and the steps are closed.
    const order = await turn.evaluate((el) => {
      const answer = el.querySelector('[data-testid="answer"]');
      const how = el.querySelector('[data-testid="how"]');
      if (answer === null || how === null) return 'missing';
      const following = 4; // Node.DOCUMENT_POSITION_FOLLOWING
      const first = (answer.compareDocumentPosition(how) & following) !== 0;
      return `${first ? 'answer-first' : 'steps-first'} ${how.hasAttribute('open') ? 'open' : 'closed'}`;
    });
    expect(order).toBe('answer-first closed');

    // What the family reads: no thoughts, tool names, JSON, English or doubled demo notice.
    const seen = await turn.innerText();
    expect(seen).not.toMatch(/I should|fridge|\{|\}|success/);
    expect(seen).toContain('完成');
    expect(seen.split('演示模式').length - 1).toBe(1);
    expect(await turn.getByTestId('label-demo').count()).toBe(1);
    expect(await turn.getByTestId('answer-text').textContent()).toBe('今晚做番茄炒蛋。');
    expect(await turn.getByTestId('card-nutrition').locator('th').allTextContents()).toEqual([
      '热量（千卡）',
      '蛋白质（克）',
    ]);

    // Opened, the steps say what was looked at and what was found, in Chinese.
    await turn.getByTestId('how').locator('summary').click();
    expect(await turn.getByTestId('how').locator('summary').textContent()).toBe('我是怎么得出的');
    const steps = await turn.getByTestId('how').innerText();
    expect(steps).toContain('看了看冰箱');
    expect(steps).toMatch(/找到 \d+ 项/);
    expect(steps).not.toMatch(/fridge_items|I should|\{/);
    await page.screenshot({ path: `${SCREENSHOTS}assistant-calm.png`, fullPage: true });

    // The playground (a developer link, not in the menu) keeps every detail of a run.
    expect(await page.locator('nav a[href="/playground"]').count()).toBe(0);
    h.model = new ControlledModel([
      act('fridge_items', {}, 'I should look in the fridge first'),
      JSON.stringify(final),
    ]);
    await page.locator('footer a[href="/playground"]').click();
    await page.locator('#pg-query').fill('今晚吃什么？');
    await page.getByTestId('run').click();
    const output = page.getByTestId('pg-output');
    await expect
      .poll(() => output.getByTestId('run-status').getAttribute('data-status'), POLL)
      .toBe('success');
    expect(await output.textContent()).toContain('I should look in the fridge first');
    expect(await output.textContent()).toContain('fridge_items');
  });

  it('API errors are said in the page’s language only, by their code', async () => {
    for (const [locale, wanted, foreign] of [
      ['zh-CN', '用户名或密码不对', /wrong|[A-Za-z]{4,}/],
      ['en-US', 'Wrong username or password', /[\u4e00-\u9fff]/],
    ] as const) {
      const page = await browser.open({ locale });
      await page.goto('/login');
      await page.locator('#username').fill('xiaojia');
      await page.locator('#password').fill('not-the-password');
      await page.locator('form button[type=submit]').click();
      const status = page.getByTestId('login-error');
      await expect.poll(() => status.textContent(), POLL).toContain(wanted);
      expect((await status.textContent()) ?? '').not.toMatch(foreign);
    }
  });

  it('“用掉” asks how much (all by default; less leaves the rest); removing a recipe asks first', async () => {
    const page = await browser.signedIn();
    await page.locator('#fridge-name').fill('测试萝卜');
    await page.locator('#fridge-qty').fill('3');
    await page.locator('#fridge-unit').fill('根');
    await page.getByRole('button', { name: '添加' }).click();
    const row = page.getByTestId('fridge-item').filter({ hasText: '测试萝卜' });
    await row.waitFor();

    await page.getByRole('button', { name: '用掉 测试萝卜' }).click();
    const amount = page.getByTestId('use-amount');
    expect(await amount.inputValue()).toBe('3'); // default: all of it
    expect(await page.getByText('用掉多少测试萝卜（根）？').count()).toBe(1);
    await amount.fill('1');
    await page.screenshot({ path: `${SCREENSHOTS}fridge-use.png`, fullPage: true });
    await page.getByTestId('use-confirm').click();
    await row.filter({ hasText: '2 根' }).waitFor();

    await page.getByRole('button', { name: '用掉 测试萝卜' }).click();
    await page.getByTestId('use-confirm').click();
    await row.waitFor({ state: 'detached' });

    await page.locator('nav a[href="/recipes"]').click();
    // A recipe on this week's plan is not removed: the page says why (409 from the API).
    const planned = page.getByTestId('recipe').filter({ hasText: '番茄炒蛋' });
    await planned.waitFor();
    const count = await page.getByTestId('recipe').count();
    await planned.getByRole('button', { name: '删除 番茄炒蛋' }).click();
    await planned.getByTestId('confirm-remove').click();
    const refused = page.getByTestId('page-error');
    await expect.poll(() => refused.getAttribute('data-code'), POLL).toBe('CONFLICT');
    expect(await page.getByTestId('recipe').count()).toBe(count);
    // One that is not planned (青椒肉丝) is removed once confirmed.
    const recipe = page.getByTestId('recipe').filter({ hasText: '青椒肉丝' });
    const name = '青椒肉丝';
    await recipe.getByRole('button', { name: `删除 ${name}` }).click();
    // Asked, nothing removed yet; "cancel" keeps it.
    expect(await recipe.textContent()).toContain(`删除“${name}”？`);
    await recipe.getByRole('button', { name: '取消' }).click();
    expect(await page.getByTestId('recipe').count()).toBe(count);
    await recipe.getByRole('button', { name: `删除 ${name}` }).click();
    await recipe.getByTestId('confirm-remove').click();
    await expect.poll(() => page.getByTestId('recipe').count(), POLL).toBe(count - 1);
  });

  it('the week plan names the weekdays (周一 … 周日 / Mon … Sun)', async () => {
    const page = await browser.signedIn();
    await page.locator('nav a[href="/plan"]').click();
    const days = page.getByTestId('plan-day').locator('.weekday');
    await expect.poll(() => days.count(), POLL).toBe(7);
    expect(await days.allTextContents()).toEqual(['周一', '周二', '周三', '周四', '周五', '周六', '周日']);
    const first = (await page.getByTestId('plan-day').first().locator('h3').textContent()) ?? '';
    expect(first).toMatch(/^周一 \d{4}-\d{2}-\d{2}$/);
    await page.locator('#lang').selectOption('en');
    await expect.poll(() => days.first().textContent(), POLL).toBe('Mon');
  });

  it('the playground is a developer link, not in the family’s menu, and still served at its URL', async () => {
    const page = await browser.signedIn();
    expect(await page.locator('nav a[href="/playground"]').count()).toBe(0);
    expect(await page.locator('footer a[href="/playground"]').textContent()).toBe('调试台');
    await page.goto('/playground');
    await page.locator('#pg-query').waitFor();
  });

  it('on a 375 px phone the header is one compact line with a menu', async () => {
    const page = await browser.signedIn('xiaojia', { width: 375 });
    const header = page.locator('header.top');
    const height = await header.evaluate((el) => el.getBoundingClientRect().height);
    expect(height).toBeLessThan(64); // was ~230 px: a third of the screen
    expect(await page.locator('nav').isVisible()).toBe(false);
    await page.getByTestId('menu-toggle').click();
    expect(await page.getByTestId('menu-toggle').getAttribute('aria-expanded')).toBe('true');
    await page.locator('nav a[href="/recipes"]').waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}phone-menu.png` });
    await page.locator('nav a[href="/recipes"]').click();
    await page.getByTestId('recipe').first().waitFor();
    // The new page starts with the menu closed again.
    expect(await page.locator('nav').isVisible()).toBe(false);
    // Wide screens show the pages in the header, no menu button.
    const wide = await browser.signedIn();
    expect(await wide.getByTestId('menu-toggle').isVisible()).toBe(false);
    expect(await wide.locator('nav').isVisible()).toBe(true);
  });
});
