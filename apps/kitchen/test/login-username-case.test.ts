import { expect, it } from 'vitest';
import { describeEachBackend } from './harness.js';

/**
 * Found in review: usernames are lower case by rule (a-z, 0-9, _ . -), and an invitation lower-
 * cases the name it is given (" XiaoWang " invites xiaowang), but login took the name as typed:
 * "XiaoJia" (a phone's auto-capital) was a 401 for the right password. Login trims and lower-
 * cases it the same way.
 */
describeEachBackend('login: the username as people type it', (harness) => {
  it.each(['XiaoJia', ' xiaojia ', 'XIAOJIA'])('%j logs xiaojia in', async (typed) => {
    const h = harness();
    const reply = await h.request('POST', '/api/auth/login', {
      body: { username: typed, password: 'demo-xiaojia' },
    });
    expect(reply.status).toBe(200);
  });

  it('the password is still exact', async () => {
    const h = harness();
    const reply = await h.request('POST', '/api/auth/login', {
      body: { username: 'XiaoJia', password: 'DEMO-xiaojia' },
    });
    expect(reply.status).toBe(401);
  });
});
