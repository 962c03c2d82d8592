import { expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../src/auth/password.js';
import { hashToken } from '../src/auth/tokens.js';
import { describeEachBackend } from './harness.js';

type Json = Record<string, unknown>;

describeEachBackend('login and sessions', (harness) => {
  it('a wrong password and an unknown user get the same 401', async () => {
    const h = harness();
    const wrong = await h.request('POST', '/api/auth/login', {
      body: { username: 'xiaojia', password: 'nope-nope' },
    });
    const unknown = await h.request('POST', '/api/auth/login', {
      body: { username: 'ghost', password: 'nope-nope' },
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body).toEqual({ error: { code: 'UNAUTHENTICATED', message: 'wrong username or password' } });
  });

  it('passwords are stored as salted scrypt hashes, never in plain text', async () => {
    const h = harness();
    const rows = await h.db.query<{ username: string; password_hash: string }>(
      "SELECT username, password_hash FROM users WHERE username IN ('xiaojia', 'mama')",
    );
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.password_hash).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
      expect(row.password_hash).not.toContain(`demo-${row.username}`);
    }
    expect(rows[0]?.password_hash.split('$')[4]).not.toBe(rows[1]?.password_hash.split('$')[4]); // salted
  });

  it('only the hash of a session token is stored', async () => {
    const h = harness();
    const token = await h.login('mama');
    const raw = await h.db.query('SELECT 1 FROM sessions WHERE token_hash = $1', [token]);
    const hashed = await h.db.query('SELECT 1 FROM sessions WHERE token_hash = $1', [hashToken(token)]);
    expect(raw).toHaveLength(0);
    expect(hashed).toHaveLength(1);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
  });

  it('no token, a bad token and a garbled header are 401', async () => {
    const h = harness();
    const variants: Record<string, string>[] = [
      {},
      { authorization: 'Bearer not-a-token' },
      { authorization: 'Basic eDp5' },
    ];
    for (const headers of variants) {
      const reply = await h.request('GET', '/api/fridge', { headers });
      expect(reply.status).toBe(401);
      expect((reply.body as Json)['error']).toMatchObject({ code: 'UNAUTHENTICATED' });
    }
  });

  it('the session cookie works like the bearer token', async () => {
    const h = harness();
    const login = await h.request('POST', '/api/auth/login', {
      body: { username: 'mama', password: 'demo-mama' },
    });
    const cookie = login.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^kitchen_session=[\w-]+;/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const me = await h.request('GET', '/api/auth/me', { headers: { cookie: cookie.split(';')[0] ?? '' } });
    expect(me.status).toBe(200);
    expect((me.body as Json)['user']).toMatchObject({ username: 'mama' });
  });

  it('tokens expire after the session lifetime', async () => {
    const h = harness();
    const token = await h.login('laowang');
    h.clock.advance(7 * 24 * 3600 * 1000 - 1000);
    expect((await h.request('GET', '/api/auth/me', { token })).status).toBe(200);
    h.clock.advance(2000);
    try {
      expect((await h.request('GET', '/api/auth/me', { token })).status).toBe(401);
      const stored = async () =>
        (await h.db.query('SELECT 1 FROM sessions WHERE token_hash = $1', [hashToken(token)])).length;
      expect(await stored()).toBe(1);
      await h.login('laowang'); // a new login clears the user's expired sessions
      expect(await stored()).toBe(0);
    } finally {
      h.clock.advance(-(7 * 24 * 3600 * 1000 + 1000));
    }
  });

  it('logout invalidates the token', async () => {
    const h = harness();
    const token = await h.login('wangshen');
    expect((await h.request('POST', '/api/auth/logout', { token })).status).toBe(204);
    expect((await h.request('GET', '/api/auth/me', { token })).status).toBe(401);
    expect((await h.request('POST', '/api/auth/logout', { token })).status).toBe(401);
  });

  it('a password reset ends the sessions and the old password stops working', async () => {
    const h = harness();
    await h.services.admin.addUser({ username: 'xiaomei', displayName: '小美', password: 'first-pass-1' });
    const { token } = await h.services.auth.login({ username: 'xiaomei', password: 'first-pass-1' });
    await h.services.admin.resetPassword('xiaomei', 'second-pass-2');
    expect(await h.services.auth.authenticate(token)).toBeNull();
    await expect(
      h.services.auth.login({ username: 'xiaomei', password: 'first-pass-1' }),
    ).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
    });
    await expect(
      h.services.auth.login({ username: 'xiaomei', password: 'second-pass-2' }),
    ).resolves.toBeDefined();
  });

  it('login validation names the field', async () => {
    const h = harness();
    const reply = await h.request('POST', '/api/auth/login', { body: { username: 'xiaojia' } });
    expect(reply.status).toBe(400);
    expect((reply.body as Json)['error']).toMatchObject({ code: 'INVALID_PARAMETER', field: 'password' });
  });
});

it('scrypt hashes verify the right password only, and a malformed hash never matches', async () => {
  const hash = await hashPassword('番茄炒蛋-123');
  expect(await verifyPassword('番茄炒蛋-123', hash)).toBe(true);
  expect(await verifyPassword('番茄炒蛋-124', hash)).toBe(false);
  expect(await verifyPassword('x', 'plain-text')).toBe(false);
  expect(await hashPassword('same')).not.toBe(await hashPassword('same'));
});
