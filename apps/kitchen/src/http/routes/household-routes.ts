import { Hono } from 'hono';
import type { KitchenServices } from '../../services/kitchen-services.js';
import { noQuery, readJson } from '../request.js';
import type { AuthVariables, SessionGuard } from '../session-auth.js';

/**
 * `/households` (mine, create, switch) and the active household's `/household/members` and
 * `/household/invitations` (owners invite; the invitee answers under `/invitations`).
 */
export function householdRoutes(services: KitchenServices, guard: SessionGuard) {
  const app = new Hono<{ Variables: AuthVariables }>();
  const { households, invitations, auth } = services;
  for (const path of ['/households', '/households/*', '/household/*']) app.use(path, guard);

  app.get('/households', noQuery, async (c) => {
    const { principal } = c.var.session;
    const mine = await households.listMine(principal);
    return c.json({ households: mine.map((h) => ({ ...h, active: h.id === principal.householdId })) });
  });
  app.post('/households', noQuery, async (c) =>
    c.json(await households.create(c.var.session.principal, await readJson(c)), 201),
  );
  app.post('/households/active', noQuery, async (c) =>
    c.json({ activeHousehold: await auth.switchHousehold(c.var.session, await readJson(c)) }),
  );

  app.get('/household/members', noQuery, async (c) =>
    c.json({ members: await households.members(c.var.session.principal) }),
  );
  app.patch('/household/members/:userId', noQuery, async (c) =>
    c.json({
      members: await households.setRole(c.var.session.principal, c.req.param('userId'), await readJson(c)),
    }),
  );
  app.delete('/household/members/:userId', noQuery, async (c) => {
    await households.removeMember(c.var.session.principal, c.req.param('userId'));
    return c.body(null, 204);
  });

  // Members join by invitation only (issue 16.10): 202 with the same body for every username.
  app.get('/household/invitations', noQuery, async (c) =>
    c.json({ invitations: await invitations.pending(c.var.session.principal) }),
  );
  app.post('/household/invitations', noQuery, async (c) =>
    c.json({ invitation: await invitations.invite(c.var.session.principal, await readJson(c)) }, 202),
  );
  app.delete('/household/invitations/:id', noQuery, async (c) => {
    await invitations.revoke(c.var.session.principal, c.req.param('id'));
    return c.body(null, 204);
  });
  return app;
}
