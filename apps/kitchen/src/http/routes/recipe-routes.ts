import { Hono } from 'hono';
import type { KitchenServices } from '../../services/kitchen-services.js';
import { idempotent } from '../idempotency.js';
import { noQuery, readJson, readQuery } from '../request.js';
import type { AuthVariables, SessionGuard } from '../session-auth.js';
import { versioned, writeOptions } from '../versioned.js';

/** `ingredients=番茄,鸡蛋` (commas, full-width commas or 、 separate names). */
function searchInput(query: Record<string, string>): Record<string, unknown> {
  const { ingredients, limit, ...rest } = query;
  return {
    ...rest,
    ingredients:
      ingredients === undefined
        ? undefined
        : ingredients
            .split(/[,，、]/)
            .map((s) => s.trim())
            .filter((s) => s !== ''),
    ...(limit === undefined ? {} : { limit: Number(limit) }),
  };
}

/** Recipes carry `version` and an `ETag`; PATCH and DELETE honour `If-Match` (412 on another version). */
export function recipeRoutes({ recipes, idempotency }: KitchenServices, guard: SessionGuard) {
  const app = new Hono<{ Variables: AuthVariables }>();
  app.use('*', guard, idempotent(idempotency));
  app.get('/', async (c) => c.json({ recipes: await recipes.list(c.var.session.principal, readQuery(c)) }));
  app.get('/search', async (c) =>
    c.json({
      matches: await recipes.searchByIngredients(c.var.session.principal, searchInput(readQuery(c))),
    }),
  );
  app.post('/', noQuery, async (c) =>
    versioned(c, await recipes.create(c.var.session.principal, await readJson(c)), 201),
  );
  app.get('/:id', noQuery, async (c) =>
    versioned(c, await recipes.get(c.var.session.principal, c.req.param('id'))),
  );
  app.patch('/:id', noQuery, async (c) => {
    const options = writeOptions(c);
    return versioned(
      c,
      await recipes.update(c.var.session.principal, c.req.param('id'), await readJson(c), options),
    );
  });
  app.delete('/:id', noQuery, async (c) => {
    await recipes.remove(c.var.session.principal, c.req.param('id'), writeOptions(c));
    return c.body(null, 204);
  });
  return app;
}
