import { Hono } from 'hono';
import type { KitchenServices } from '../../services/kitchen-services.js';
import type { AuthVariables, SessionGuard } from '../session-auth.js';
import { noQuery } from '../request.js';

/**
 * `/invitations`: the invitations addressed to the signed-in user, and their answers. No
 * active household needed — a new user's first household comes this way.
 */
export function invitationRoutes(services: KitchenServices, guard: SessionGuard) {
  const app = new Hono<{ Variables: AuthVariables }>();
  const { invitations, auth } = services;
  for (const path of ['/invitations', '/invitations/*']) app.use(path, guard);

  app.get('/invitations', noQuery, async (c) =>
    c.json({ invitations: await invitations.mine(c.var.session.principal) }),
  );
  app.post('/invitations/:id/accept', noQuery, async (c) => {
    const { session } = c.var;
    const household = await invitations.accept(session.principal, c.req.param('id'));
    // A session without a household yet starts in the one it just joined.
    const active =
      session.principal.householdId ??
      (await auth.switchHousehold(session, { householdId: household.id })).id;
    return c.json({ household: { ...household, active: active === household.id } });
  });
  app.post('/invitations/:id/decline', noQuery, async (c) => {
    await invitations.decline(c.var.session.principal, c.req.param('id'));
    return c.body(null, 204);
  });
  return app;
}
