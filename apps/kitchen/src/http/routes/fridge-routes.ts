import { Hono } from 'hono';
import type { KitchenServices } from '../../services/kitchen-services.js';
import { readJson, readQuery } from '../request.js';
import type { AuthVariables, SessionGuard } from '../session-auth.js';

export function fridgeRoutes({ fridge }: KitchenServices, guard: SessionGuard) {
  const app = new Hono<{ Variables: AuthVariables }>();
  app.use('*', guard);
  app.get('/', async (c) => c.json({ items: await fridge.list(c.var.session.principal, readQuery(c)) }));
  app.post('/', async (c) => c.json(await fridge.create(c.var.session.principal, await readJson(c)), 201));
  app.get('/:id', async (c) => c.json(await fridge.get(c.var.session.principal, c.req.param('id'))));
  app.patch('/:id', async (c) =>
    c.json(await fridge.update(c.var.session.principal, c.req.param('id'), await readJson(c))),
  );
  app.delete('/:id', async (c) => {
    await fridge.remove(c.var.session.principal, c.req.param('id'));
    return c.body(null, 204);
  });
  app.post('/:id/use', async (c) =>
    c.json(await fridge.useUp(c.var.session.principal, c.req.param('id'), await readJson(c))),
  );
  return app;
}
