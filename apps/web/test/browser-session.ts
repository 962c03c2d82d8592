import type { BrowserContext, Page } from 'playwright-core';
import type { WebHarness } from './web-harness.js';

export const final = (text: string, thought = 'done'): string => JSON.stringify({ thought, final: text });
export const act = (action: string, input: unknown, thought = 'looking'): string =>
  JSON.stringify({ thought, action, input });

/** A page in a fresh context that counts the dialogs it was shown (an injected `alert` would). */
export interface WatchedPage extends Page {
  dialogs: number;
}

/** Fresh browser contexts (own storage) signed in through the login form; closed by `closeAll`. */
export function sessions(harness: () => WebHarness) {
  const contexts: BrowserContext[] = [];
  return {
    async open(options: { width?: number; locale?: string } = {}): Promise<WatchedPage> {
      const context = await harness().newContext(options);
      contexts.push(context);
      const page = (await context.newPage()) as WatchedPage;
      page.dialogs = 0;
      page.on('dialog', (dialog) => {
        page.dialogs++;
        void dialog.dismiss();
      });
      return page;
    },
    async signedIn(
      user = 'xiaojia',
      options: { width?: number; locale?: string } = {},
    ): Promise<WatchedPage> {
      const page = await this.open(options);
      await page.goto('/login');
      await page.locator('#username').fill(user);
      await page.locator('#password').fill(`demo-${user}`);
      await page.locator('form button[type=submit]').click();
      await page.getByTestId('fridge-list').waitFor();
      return page;
    },
    async closeAll(): Promise<void> {
      for (const c of contexts) await c.close().catch(() => undefined);
    },
  };
}

export async function ask(page: Page, question: string): Promise<void> {
  await page.locator('nav a[href="/assistant"]').click();
  await page.locator('#ask-input').fill(question);
  await page.locator('#ask-input').press('Enter');
}
