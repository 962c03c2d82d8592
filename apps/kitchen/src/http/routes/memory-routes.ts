import { Hono } from 'hono';
import type { KitchenServices } from '../../services/kitchen-services.js';
import { idempotent } from '../idempotency.js';
import { noQuery, readJson } from '../request.js';
import type { AuthVariables, SessionGuard } from '../session-auth.js';

/** The household's memories: list (newest first), add `{text}`, delete by id. */
export function memoryRoutes({ memories, idempotency }: KitchenServices, guard: SessionGuard) {
  const app = new Hono<{ Variables: AuthVariables }>();
  app.use('*', guard, idempotent(idempotency));
  app.get('/', noQuery, async (c) => c.json({ memories: await memories.list(c.var.session.principal) }));
  app.post('/', noQuery, async (c) =>
    c.json(await memories.remember(c.var.session.principal, await readJson(c)), 201),
  );
  app.delete('/:id', noQuery, async (c) => {
    await memories.forget(c.var.session.principal, c.req.param('id'));
    return c.body(null, 204);
  });
  return app;
}
