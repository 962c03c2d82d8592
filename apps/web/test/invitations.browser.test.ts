import { mkdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessions, type WatchedPage } from './browser-session.js';
import { SCREENSHOTS, startWebHarness, type WebHarness } from './web-harness.js';

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

async function toPreferences(page: WatchedPage): Promise<void> {
  await page.locator('nav a[href="/preferences"]').click();
  await page.getByTestId('received-invitations').locator('li').first().waitFor();
}

async function invite(page: WatchedPage, username: string): Promise<void> {
  await page.locator('#invite-username').fill(username);
  await page.getByRole('button', { name: '邀请', exact: true }).click();
  await page.getByTestId('pending-invitation').filter({ hasText: username }).waitFor();
}

describe('membership by invitation in the web UI (issue 16.10)', () => {
  // Two browsers and three sign-ins (password hashing) on a shared machine: more than the default 20 s.
  it(
    'an owner invites and withdraws; a new user without a household accepts and sees the fridge',
    { timeout: 60_000 },
    async () => {
      await h.services.admin.addUser({ username: 'xinke', displayName: '新客', password: 'xinke-pass' });
      const owner = await browser.signedIn('xiaojia');
      await toPreferences(owner);
      await invite(owner, 'xinke');
      expect(await owner.getByTestId('invitation-sent').textContent()).toContain('xinke');
      await invite(owner, 'typo-name'); // nobody holds it: the same answer, and it can be withdrawn
      await owner.getByRole('button', { name: '撤回 typo-name' }).click();
      await owner
        .getByTestId('pending-invitation')
        .filter({ hasText: 'typo-name' })
        .waitFor({ state: 'detached' });
      await owner.screenshot({ path: `${SCREENSHOTS}invitations-owner.png`, fullPage: true });

      // The invitee has no household yet: signing in lands on the page that shows invitations.
      const page = await browser.open();
      await page.goto('/login');
      await page.locator('#username').fill('xinke');
      await page.locator('#password').fill('xinke-pass');
      await page.locator('form button[type=submit]').click();
      const received = page.getByTestId('received-invitation');
      await received.waitFor();
      expect(await received.textContent()).toContain('小贾家');
      expect(await received.textContent()).toContain('小贾 邀请你成为成员');
      await page.getByRole('button', { name: '接受 小贾家' }).click();
      await page.getByTestId('household-switcher').waitFor();
      await received.waitFor({ state: 'detached' });
      await page.locator('nav a[href="/fridge"]').click();
      await page.getByTestId('fridge-item').first().waitFor();
      // The owner's pending list no longer has it.
      await owner.reload();
      await owner.getByTestId('pending-invitations').locator('li.hint').waitFor();
    },
  );

  it('a member declines an invitation and stays out of that household', async () => {
    const { session } = await h.services.auth.login({ username: 'laowang', password: 'demo-laowang' });
    await h.services.invitations.invite(session.principal, { username: 'mama' });
    const page = await browser.signedIn('mama');
    await toPreferences(page);
    // A member (not an owner) of 小贾家: no invite form.
    expect(await page.locator('#invite-username').count()).toBe(0);
    await page.getByRole('button', { name: '拒绝 老王家' }).click();
    await page.getByTestId('received-invitations').getByText('暂时没有邀请').waitFor();
    const mine = await h.services.households.listMine(
      (await h.services.auth.login({ username: 'mama', password: 'demo-mama' })).session.principal,
    );
    expect(mine.map((x) => x.name)).toEqual(['小贾家']);
  });
});
