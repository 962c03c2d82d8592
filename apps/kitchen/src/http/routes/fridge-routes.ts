import { Hono } from 'hono';
import { etagOf } from '../../domain/versions.js';
import type { KitchenServices } from '../../services/kitchen-services.js';
import { idempotent } from '../idempotency.js';
import { noQuery, readJson, readQuery } from '../request.js';
import type { AuthVariables, SessionGuard } from '../session-auth.js';
import { versioned, writeOptions } from '../versioned.js';

/** Items carry `version` and an `ETag`; PATCH, DELETE and use honour `If-Match` (412 on another version). */
export function fridgeRoutes({ fridge, idempotency }: KitchenServices, guard: SessionGuard) {
  const app = new Hono<{ Variables: AuthVariables }>();
  app.use('*', guard, idempotent(idempotency));
  app.get('/', async (c) => c.json({ items: await fridge.list(c.var.session.principal, readQuery(c)) }));
  app.post('/', noQuery, async (c) =>
    versioned(c, await fridge.create(c.var.session.principal, await readJson(c)), 201),
  );
  app.get('/:id', noQuery, async (c) =>
    versioned(c, await fridge.get(c.var.session.principal, c.req.param('id'))),
  );
  app.patch('/:id', noQuery, async (c) => {
    const options = writeOptions(c);
    return versioned(
      c,
      await fridge.update(c.var.session.principal, c.req.param('id'), await readJson(c), options),
    );
  });
  app.delete('/:id', noQuery, async (c) => {
    await fridge.remove(c.var.session.principal, c.req.param('id'), writeOptions(c));
    return c.body(null, 204);
  });
  // 409 CONFLICT when more is asked for than is left (checked in the same UPDATE that takes it).
  app.post('/:id/use', noQuery, async (c) => {
    const options = writeOptions(c);
    const used = await fridge.useUp(c.var.session.principal, c.req.param('id'), await readJson(c), options);
    if (used.item !== null) c.header('ETag', etagOf(used.item.id, used.item.version));
    return c.json(used);
  });
  return app;
}
