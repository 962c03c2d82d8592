import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { crossOriginGuard, type AllowedHosts } from '@reins/server';
import { KitchenError } from '../domain/errors.js';
import type { KitchenServices } from '../services/kitchen-services.js';
import { errorResponse, onError } from './errors.js';
import { authRoutes, loginEarlyRefusal } from './routes/auth-routes.js';
import { fridgeRoutes } from './routes/fridge-routes.js';
import { householdRoutes } from './routes/household-routes.js';
import { invitationRoutes } from './routes/invitation-routes.js';
import { mealPlanRoutes } from './routes/meal-plan-routes.js';
import { memoryRoutes } from './routes/memory-routes.js';
import { preferenceRoutes } from './routes/preference-routes.js';
import { recipeRoutes } from './routes/recipe-routes.js';
import { refuseBadText } from './refuse-bad-text.js';
import { requireSession, type AuthVariables } from './session-auth.js';
import { useSecurityGuards } from './security-guards.js';
import { webAssets, type WebAssetsOptions } from './web-assets.js';

export interface KitchenAppDeps {
  readonly services: KitchenServices;
  /** Largest request body. Default 64 KiB (a long recipe is a few KiB). */
  readonly maxBodyBytes?: number;
  /** Default false (plain HTTP on 127.0.0.1). */
  readonly secureCookie?: boolean;
  /** Unexpected errors (bugs) go here before the 500. Default: console.error. */
  readonly reportError?: (error: unknown) => void;
  /**
   * The web UI (`apps/web/dist`) at `/`: its files under a strict CSP, `index.html` for page
   * paths. Absent: API only.
   */
  readonly web?: WebAssetsOptions;
  /** `Host` names answered besides the loopback names (DNS rebinding; see `useSecurityGuards`). */
  readonly allowedHosts?: AllowedHosts;
  /**
   * Origins whose pages may write here besides the request's own (`REINS_ALLOWED_ORIGINS`):
   * every other `/api` POST, PUT, PATCH or DELETE gets 403 `CROSS_ORIGIN` (see `crossOriginGuard`).
   */
  readonly allowedOrigins?: readonly string[];
  /**
   * Reverse proxies in front (`REINS_TRUST_PROXY`): with N ≥ 1 the login backoff keys the client
   * by `X-Forwarded-For` as the N-th proxy from the inside saw it. Default 0: the socket's address.
   */
  readonly trustProxy?: number;
}

/**
 * The REST API under `/api`, plus `/health` (and the web UI at `/` when `web` is given). A hono app: serve it alone or mount it
 * (`parent.route('/', createKitchenApp(deps))`). Every household route reads the principal
 * from the session, never from the request.
 */
export function createKitchenApp(deps: KitchenAppDeps): Hono {
  const { services } = deps;
  const maxSize = deps.maxBodyBytes ?? 64 * 1024;
  const app = new Hono<{ Variables: AuthVariables }>();

  app.onError(onError(deps.reportError ?? ((error) => console.error(error))));
  useSecurityGuards(app, deps.allowedHosts);
  // Cross-site request forgery (logout and login too): writes come from this origin, as JSON.
  app.use('/api/*', crossOriginGuard({ allowedOrigins: deps.allowedOrigins ?? [] }));
  app.notFound((c) =>
    errorResponse(c, new KitchenError('NOT_FOUND', `no route ${c.req.method} ${c.req.path}`)),
  );
  // A login flood is refused before its bodies are read (a locked address, a full gate).
  app.use('/api/auth/login', loginEarlyRefusal(services, deps.trustProxy ?? 0));
  app.use(
    '/api/*',
    bodyLimit({
      maxSize,
      onError: (c) =>
        errorResponse(c, new KitchenError('PAYLOAD_TOO_LARGE', `request body over ${maxSize} bytes`)),
    }),
  );
  // Path and query parameters with a NUL or another control character: 400 naming the field.
  app.use('/api/*', refuseBadText());

  app.get('/health', async (c) => {
    await services.env.db.query('SELECT 1');
    return c.json({ status: 'ok', backend: services.env.db.backend });
  });

  // Each route group puts the session guard on its own paths (login is the only open route), so
  // the guard does not depend on where this app is mounted.
  const guard = requireSession(services.auth);
  app.route(
    '/api/auth',
    authRoutes(services, guard, {
      secureCookie: deps.secureCookie ?? false,
      trustProxy: deps.trustProxy ?? 0,
    }),
  );
  app.route('/api', householdRoutes(services, guard));
  app.route('/api', invitationRoutes(services, guard));
  app.route('/api/fridge', fridgeRoutes(services, guard));
  app.route('/api/recipes', recipeRoutes(services, guard));
  app.route('/api/meal-plans', mealPlanRoutes(services, guard));
  app.route('/api/preferences', preferenceRoutes(services, guard));
  app.route('/api/memories', memoryRoutes(services, guard));
  // Last, so every API route is tried first; API paths that match nothing still get JSON 404s.
  if (deps.web !== undefined) app.use('*', webAssets(deps.web));
  return app as unknown as Hono; // the variables are internal; callers only mount or fetch
}
