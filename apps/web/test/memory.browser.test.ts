import { mkdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  await mkdir(SCREENSHOTS, { recursive: true });
}, 90_000);

afterAll(async () => {
  await browser.closeAll();
  await h?.close();
});

async function memoriesOnPreferences(page: WatchedPage): Promise<string[]> {
  await page.locator('nav a[href="/preferences"]').click();
  const list = page.getByTestId('memories');
  await list.locator('li').first().waitFor();
  return list.getByTestId('memory').locator('.item-name').allTextContents();
}

describe('household memories in the web UI', () => {
  it('the preferences page lists, adds and deletes the household’s memories', async () => {
    const page = await browser.signedIn('xiaojia');
    expect(await memoriesOnPreferences(page)).toEqual([]);
    for (const text of ['婆婆不吃辣', '这条是临时的']) {
      await page.locator('#memory-text').fill(text);
      await page.locator('#memory-text').press('Enter');
      await page.getByTestId('memories').getByText(text).waitFor();
    }
    expect(await memoriesOnPreferences(page)).toEqual(['这条是临时的', '婆婆不吃辣']);
    await page.getByRole('button', { name: '删除 这条是临时的' }).click();
    await page.getByTestId('confirm-remove').click(); // asks first (issue 19)
    await page
      .getByTestId('memories')
      .getByText('这条是临时的', { exact: true })
      .waitFor({ state: 'detached' });
    // Another household sees none of them.
    const other = await browser.signedIn('laowang');
    expect(await memoriesOnPreferences(other)).toEqual([]);
  });

  it('the assistant recalls 婆婆不吃辣 for 今晚做什么菜？ and shows the memory it used', async () => {
    const page = await browser.signedIn('xiaojia');
    if (!(await memoriesOnPreferences(page)).includes('婆婆不吃辣')) {
      await page.locator('#memory-text').fill('婆婆不吃辣');
      await page.locator('#memory-text').press('Enter');
      await page.getByTestId('memories').getByText('婆婆不吃辣').waitFor();
    }
    await ask(page, '今晚做什么菜？');
    const turn = page.getByTestId('assistant-turn').last();
    const used = turn.getByTestId('used-memories');
    await used.waitFor();
    expect(await used.textContent()).toContain('用到的记忆');
    expect(await used.textContent()).toContain('婆婆不吃辣');
    expect(await turn.locator('.step-act').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining('想了想家里记下的事')]),
    );
    await expect
      .poll(() => turn.getByTestId('run-status').getAttribute('data-status'), POLL)
      .toContain('success');
    await page.screenshot({ path: `${SCREENSHOTS}assistant-memory.png`, fullPage: true });
  });

  it('“记住：…” asks for approval: approved, it is remembered; declined, it is not', async () => {
    const page = await browser.signedIn('xiaojia');
    await ask(page, '记住：小宝对花生过敏');
    const turn = page.getByTestId('assistant-turn').last();
    const approval = turn.getByTestId('approval');
    await approval.waitFor();
    expect(await approval.textContent()).toContain('小宝对花生过敏');
    await approval.getByTestId('approve').click();
    await turn.getByTestId('answer').waitFor();
    expect(await turn.getByTestId('answer-text').textContent()).toContain('记住了：小宝对花生过敏');
    await expect
      .poll(() => turn.getByTestId('run-status').getAttribute('data-status'), POLL)
      .toContain('success');

    await page.locator('#ask-input').fill('记住：爷爷不吃香菜');
    await page.locator('#ask-input').press('Enter');
    const second = page.getByTestId('assistant-turn').last();
    await second.getByTestId('approval').getByTestId('decline').click();
    await second.getByTestId('answer').waitFor();
    expect(await second.getByTestId('answer-text').textContent()).toContain('没有记下');

    const memories = await memoriesOnPreferences(page);
    expect(memories).toContain('小宝对花生过敏');
    expect(memories).not.toContain('爷爷不吃香菜');
  });
});
