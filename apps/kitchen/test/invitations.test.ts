import { expect, it } from 'vitest';
import { describeEachBackend, START, type Harness } from './harness.js';

/**
 * Issue 16.10, membership by invitation: an owner could add any existing username (201) and
 * tell real usernames from unknown ones (404). Now an owner invites, the invitee accepts or
 * declines, and the inviter's answer is the same for every username.
 * (The answer being the same on the inside too — the same queries — is in
 * `invitation-probe.test.ts`.)
 */

type Json = Record<string, unknown>;
const json = (r: { body: unknown }) => r.body as Json;
const DAY = 86_400_000;
const INVITE = '/api/household/invitations';

/** A new user with no household yet; returns a session token (no HTTP login rate limit involved). */
async function newUser(h: Harness, username: string): Promise<string> {
  await h.services.admin.addUser({ username, displayName: `${username}-name`, password: `${username}-pw` });
  return signIn(h, username);
}

async function signIn(h: Harness, username: string): Promise<string> {
  return (await h.services.auth.login({ username, password: `${username}-pw` })).token;
}

async function invite(h: Harness, token: string, username: string, role?: string) {
  return h.request('POST', INVITE, { token, body: role === undefined ? { username } : { username, role } });
}

async function membershipCount(h: Harness, household: string, username: string): Promise<number> {
  const rows = await h.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM memberships m JOIN users u ON u.id = m.user_id
     WHERE m.household_id = $1 AND u.username = $2`,
    [household, username],
  );
  return rows[0]?.n ?? -1;
}

describeEachBackend('membership by invitation (issue 16.10)', (harness) => {
  it('an existing and an unknown username get the same 202 and the same body, and are stored alike', async () => {
    const h = harness();
    const owner = await h.login('xiaojia');
    const known = await invite(h, owner, 'laowang'); // a real user, not a member of 小贾家
    const unknown = await invite(h, owner, 'no-such-user');
    for (const reply of [known, unknown]) expect(reply.status).toBe(202);
    const expiresAt = new Date(START.getTime() + 7 * DAY).toISOString();
    const strip = (r: { body: unknown }) => ({ ...(json(r)['invitation'] as Json), id: '*', username: '*' });
    expect(strip(known)).toEqual({ id: '*', username: '*', role: 'member', status: 'pending', expiresAt });
    expect(strip(unknown)).toEqual(strip(known));
    expect(json(unknown)['invitation']).toMatchObject({ username: 'no-such-user' });

    const rows = await h.db.query<Json>(
      `SELECT username, role, status, invited_by, created_at::text AS c, expires_at::text AS e
       FROM invitations WHERE username IN ('laowang', 'no-such-user') ORDER BY username`,
    );
    expect(rows).toHaveLength(2);
    expect({ ...rows[0], username: '*' }).toEqual({ ...rows[1], username: '*' });

    // Names are trimmed and lower-cased; inviting a pending name again renews that invitation.
    h.clock.advance(60_000);
    const again = await invite(h, owner, '  LaoWang ', 'owner');
    expect(again.status).toBe(202);
    expect(json(again)['invitation']).toMatchObject({
      id: (json(known)['invitation'] as Json)['id'],
      username: 'laowang',
      role: 'owner',
      expiresAt: new Date(START.getTime() + 7 * DAY + 60_000).toISOString(),
    });
    const pending = json(await h.request('GET', INVITE, { token: owner }))['invitations'] as Json[];
    expect(pending.map((i) => i['username']).sort()).toEqual(['laowang', 'no-such-user']);
    expect(pending[0]).toMatchObject({ status: 'pending', invitedBy: '小贾' });

    // A name that cannot be a username is refused for its form, whoever asks: nobody holds it.
    const malformed = await invite(h, owner, 'not a name');
    expect(malformed.status).toBe(400);
    expect(json(malformed)['error']).toMatchObject({ code: 'INVALID_PARAMETER', field: 'username' });
    // Someone already a member: 409 (the owner sees the members list anyway, nothing new is told).
    const member = await invite(h, owner, 'mama');
    expect(member.status).toBe(409);
    expect(json(member)['error']).toMatchObject({ code: 'CONFLICT', field: 'username' });
    // The direct add is gone: no route, nobody added.
    const direct = await h.request('POST', '/api/household/members', {
      token: owner,
      body: { username: 'laowang' },
    });
    expect(direct.status).toBe(404);
    expect(await membershipCount(h, await h.householdId('小贾家'), 'laowang')).toBe(0);
  });

  it('accept: the invitee becomes a member with the invited role and sees the household’s fridge', async () => {
    const h = harness();
    const owner = await h.login('xiaojia');
    const household = await h.householdId('小贾家');
    const token = await newUser(h, 'xinren'); // no household at all yet
    expect((await h.request('GET', '/api/fridge', { token })).status).toBe(403);
    const id = (json(await invite(h, owner, 'xinren', 'owner'))['invitation'] as Json)['id'] as string;

    const mine = json(await h.request('GET', '/api/invitations', { token }))['invitations'] as Json[];
    expect(mine).toEqual([
      {
        id,
        household: { id: household, name: '小贾家' },
        role: 'owner',
        invitedBy: '小贾',
        createdAt: expect.any(String) as unknown,
        expiresAt: expect.any(String) as unknown,
      },
    ]);
    const accepted = await h.request('POST', `/api/invitations/${id}/accept`, { token });
    expect(accepted.status).toBe(200);
    // Its first household becomes the session's active one.
    expect(json(accepted)).toEqual({
      household: { id: household, name: '小贾家', role: 'owner', active: true },
    });
    const fridge = await h.request('GET', '/api/fridge', { token });
    expect(fridge.status).toBe(200);
    expect((json(fridge)['items'] as Json[]).length).toBeGreaterThan(0);
    // Invited as owner, so they may list the household's invitations now.
    expect((await h.request('GET', INVITE, { token })).status).toBe(200);
    const members = json(await h.request('GET', '/api/household/members', { token: owner }))['members'];
    expect(members).toContainEqual(expect.objectContaining({ username: 'xinren', role: 'owner' }));

    // Answered: gone from both lists; accepting again is a clear 409, never a second membership.
    expect(json(await h.request('GET', '/api/invitations', { token }))['invitations']).toEqual([]);
    const open = json(await h.request('GET', INVITE, { token: owner }))['invitations'] as Json[];
    expect(open.map((i) => i['id'])).not.toContain(id);
    const twice = await h.request('POST', `/api/invitations/${id}/accept`, { token });
    expect(twice.status).toBe(409);
    expect(json(twice)['error']).toMatchObject({
      code: 'CONFLICT',
      message: 'this invitation was already accepted',
    });
    expect(await membershipCount(h, household, 'xinren')).toBe(1);
  });

  it('a user with a household keeps their active one; the new household is a switch away', async () => {
    const h = harness();
    const owner = await h.login('laowang');
    const token = await h.login('mama'); // 小贾家
    const id = (json(await invite(h, owner, 'mama'))['invitation'] as Json)['id'] as string;
    const accepted = await h.request('POST', `/api/invitations/${id}/accept`, { token });
    expect(json(accepted)).toMatchObject({ household: { name: '老王家', role: 'member', active: false } });
    const other = await h.householdId('老王家');
    expect(
      (await h.request('POST', '/api/households/active', { token, body: { householdId: other } })).status,
    ).toBe(200);
    const fridge = json(await h.request('GET', '/api/fridge', { token }))['items'] as Json[];
    const theirs = await h.db.query('SELECT 1 FROM fridge_items WHERE household_id = $1', [other]);
    expect(fridge).toHaveLength(theirs.length);
  });

  it('decline: not a member; the declined invitation cannot be accepted afterwards', async () => {
    const h = harness();
    const owner = await h.login('laowang');
    const token = await newUser(h, 'jujue');
    const id = (json(await invite(h, owner, 'jujue'))['invitation'] as Json)['id'] as string;
    expect((await h.request('POST', `/api/invitations/${id}/decline`, { token })).status).toBe(204);
    const household = await h.householdId('老王家');
    expect(await membershipCount(h, household, 'jujue')).toBe(0);
    expect(json(await h.request('GET', '/api/invitations', { token }))['invitations']).toEqual([]);
    const late = await h.request('POST', `/api/invitations/${id}/accept`, { token });
    expect(late.status).toBe(409);
    expect(json(late)['error']).toMatchObject({
      code: 'CONFLICT',
      message: 'this invitation was already declined',
    });
    const switched = await h.request('POST', '/api/households/active', {
      token,
      body: { householdId: household },
    });
    expect(switched.status).toBe(404);
    expect(await membershipCount(h, household, 'jujue')).toBe(0);
  });

  it('someone else’s invitation is a 404 like an unknown id: not listed, not accepted, declined or revoked', async () => {
    const h = harness();
    const owner = await h.login('xiaojia');
    await newUser(h, 'shouxin'); // the invitee
    const intruder = await newUser(h, 'pangren');
    const id = (json(await invite(h, owner, 'shouxin'))['invitation'] as Json)['id'] as string;
    expect(json(await h.request('GET', '/api/invitations', { token: intruder }))['invitations']).toEqual([]);
    for (const action of ['accept', 'decline']) {
      const theirs = await h.request('POST', `/api/invitations/${id}/${action}`, { token: intruder });
      const unknown = await h.request('POST', `/api/invitations/no-such-id/${action}`, { token: intruder });
      expect(theirs.status).toBe(404);
      expect(theirs.body).toEqual(unknown.body);
      expect(json(theirs)['error']).toMatchObject({ code: 'NOT_FOUND' });
    }
    // The owner of another household neither lists nor revokes it.
    const otherOwner = await h.login('laowang');
    const listed = json(await h.request('GET', INVITE, { token: otherOwner }))['invitations'] as Json[];
    expect(listed.map((i) => i['id'])).not.toContain(id);
    expect((await h.request('DELETE', `${INVITE}/${id}`, { token: otherOwner })).status).toBe(404);
    // Still pending for its invitee.
    const theirs = json(await h.request('GET', '/api/invitations', { token: await signIn(h, 'shouxin') }));
    expect((theirs['invitations'] as Json[]).map((i) => i['id'])).toEqual([id]);
    expect(await membershipCount(h, await h.householdId('小贾家'), 'pangren')).toBe(0);
  });

  it('only an owner invites, lists and revokes invitations (403)', async () => {
    const h = harness();
    const member = await h.login('mama'); // a member, not an owner, of 小贾家
    const id = (json(await invite(h, await h.login('xiaojia'), 'quanxian'))['invitation'] as Json)[
      'id'
    ] as string;
    const attempts = [
      await invite(h, member, 'someone-else'),
      await h.request('GET', INVITE, { token: member }),
      await h.request('DELETE', `${INVITE}/${id}`, { token: member }),
    ];
    for (const reply of attempts) {
      expect(reply.status).toBe(403);
      expect(json(reply)['error']).toMatchObject({ code: 'PERMISSION_DENIED' });
    }
    const stored = await h.db.query<{ status: string }>(
      "SELECT status FROM invitations WHERE username IN ('someone-else', 'quanxian') ORDER BY username",
    );
    expect(stored).toEqual([{ status: 'pending' }]); // quanxian's, not revoked; none for someone-else
  });

  it('revoke: the invitee no longer sees the invitation and cannot accept it', async () => {
    const h = harness();
    const owner = await h.login('xiaojia');
    const token = await newUser(h, 'chehui');
    const id = (json(await invite(h, owner, 'chehui'))['invitation'] as Json)['id'] as string;
    expect((await h.request('DELETE', `${INVITE}/${id}`, { token: owner })).status).toBe(204);
    expect(json(await h.request('GET', '/api/invitations', { token }))['invitations']).toEqual([]);
    expect((await h.request('POST', `/api/invitations/${id}/accept`, { token })).status).toBe(404);
    expect((await h.request('DELETE', `${INVITE}/${id}`, { token: owner })).status).toBe(404); // once
    expect(await membershipCount(h, await h.householdId('小贾家'), 'chehui')).toBe(0);
    // A new invitation can follow the withdrawn one.
    expect((await invite(h, owner, 'chehui')).status).toBe(202);
  });

  it('two accepts at once: one 200, one 409, one membership', async () => {
    const h = harness();
    const owner = await h.login('laowang');
    const token = await newUser(h, 'liangci');
    const id = (json(await invite(h, owner, 'liangci'))['invitation'] as Json)['id'] as string;
    const replies = await Promise.all(
      [0, 1, 2].map(() => h.request('POST', `/api/invitations/${id}/accept`, { token })),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    expect(await membershipCount(h, await h.householdId('老王家'), 'liangci')).toBe(1);
  });

  it('accepting after being added some other way keeps the one membership and its role', async () => {
    const h = harness();
    const owner = await h.login('laowang');
    const token = await newUser(h, 'yijing');
    const id = (json(await invite(h, owner, 'yijing', 'owner'))['invitation'] as Json)['id'] as string;
    await h.services.admin.addMember('老王家', 'yijing', 'member'); // the operator, at the console
    const accepted = await h.request('POST', `/api/invitations/${id}/accept`, { token });
    expect(accepted.status).toBe(200);
    expect(json(accepted)).toMatchObject({ household: { name: '老王家', role: 'member' } });
    expect(await membershipCount(h, await h.householdId('老王家'), 'yijing')).toBe(1);
  });

  it('expiry: after 7 days an invitation is 410 EXPIRED and unlisted; inviting again renews it', async () => {
    const h = harness();
    try {
      const token0 = await newUser(h, 'guoqi');
      const id = (json(await invite(h, await h.login('xiaojia'), 'guoqi'))['invitation'] as Json)[
        'id'
      ] as string;
      h.clock.advance(7 * DAY - 60_000);
      expect(
        (json(await h.request('GET', '/api/invitations', { token: token0 }))['invitations'] as Json[]).length,
      ).toBe(1);
      h.clock.advance(2 * 60_000); // a minute past the expiry (sessions expire too: sign in again)
      const token = await signIn(h, 'guoqi');
      const owner = await h.login('xiaojia');
      expect(json(await h.request('GET', '/api/invitations', { token }))['invitations']).toEqual([]);
      const open = json(await h.request('GET', INVITE, { token: owner }))['invitations'] as Json[];
      expect(open.map((i) => i['id'])).not.toContain(id);
      for (const action of ['accept', 'decline']) {
        const late = await h.request('POST', `/api/invitations/${id}/${action}`, { token });
        expect(late.status).toBe(410);
        expect(json(late)['error']).toMatchObject({ code: 'EXPIRED' });
      }
      const household = await h.householdId('小贾家');
      expect(await membershipCount(h, household, 'guoqi')).toBe(0);
      const renewed = await invite(h, owner, 'guoqi');
      expect(json(renewed)['invitation']).toMatchObject({ id, status: 'pending' });
      expect((await h.request('POST', `/api/invitations/${id}/accept`, { token })).status).toBe(200);
      expect(await membershipCount(h, household, 'guoqi')).toBe(1);
    } finally {
      h.clock.now = new Date(START);
    }
  });
});
