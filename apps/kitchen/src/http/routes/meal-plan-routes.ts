import { Hono } from 'hono';
import { invalid } from '../../domain/errors.js';
import type { KitchenServices } from '../../services/kitchen-services.js';
import { idempotent } from '../idempotency.js';
import { noQuery, readJson, readQuery } from '../request.js';
import type { AuthVariables, SessionGuard } from '../session-auth.js';
import { versioned, writeOptions } from '../versioned.js';

/** Entries carry `version` and an `ETag`; PATCH and DELETE honour `If-Match` (412 on another version). */
export function mealPlanRoutes({ mealPlans, idempotency }: KitchenServices, guard: SessionGuard) {
  const app = new Hono<{ Variables: AuthVariables }>();
  app.use('*', guard, idempotent(idempotency));

  // `?from=&to=` for a range, `?week=<any day>` for Monday–Sunday, nothing for this week.
  app.get('/', async (c) => {
    const principal = c.var.session.principal;
    const { week, ...rest } = readQuery(c);
    const extra = Object.keys(rest)[0];
    if (week !== undefined && extra !== undefined) throw invalid(extra, `${extra} is not allowed with week`);
    if (week !== undefined || extra === undefined) return c.json(await mealPlans.week(principal, week));
    const entries = await mealPlans.list(principal, rest);
    return c.json({ from: rest['from'], to: rest['to'], entries });
  });
  app.post('/', noQuery, async (c) =>
    versioned(c, await mealPlans.create(c.var.session.principal, await readJson(c)), 201),
  );
  app.get('/:id', noQuery, async (c) =>
    versioned(c, await mealPlans.get(c.var.session.principal, c.req.param('id'))),
  );
  app.patch('/:id', noQuery, async (c) => {
    const options = writeOptions(c);
    return versioned(
      c,
      await mealPlans.update(c.var.session.principal, c.req.param('id'), await readJson(c), options),
    );
  });
  app.delete('/:id', noQuery, async (c) => {
    await mealPlans.remove(c.var.session.principal, c.req.param('id'), writeOptions(c));
    return c.body(null, 204);
  });
  return app;
}
