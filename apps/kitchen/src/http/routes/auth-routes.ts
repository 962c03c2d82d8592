import { Hono, type MiddlewareHandler } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import type { KitchenServices } from '../../services/kitchen-services.js';
import { clientAddress } from '../client-address.js';
import { errorResponse } from '../errors.js';
import { noQuery, readJson } from '../request.js';
import { SESSION_COOKIE, type AuthVariables, type SessionGuard } from '../session-auth.js';

export interface AuthRouteOptions {
  /** Mark the cookie `Secure` (behind HTTPS). Default false: the server listens on 127.0.0.1. */
  readonly secureCookie: boolean;
  /** Reverse proxies in front whose `X-Forwarded-For` is believed (see `clientAddress`). Default 0. */
  readonly trustProxy?: number;
}

export function authRoutes(services: KitchenServices, guard: SessionGuard, options: AuthRouteOptions) {
  const app = new Hono<{ Variables: AuthVariables }>();

  app.post('/login', noQuery, async (c) => {
    const address = clientAddress(c, options.trustProxy ?? 0);
    const { token, session } = await services.auth.login(
      await readJson(c),
      address === undefined ? {} : { address },
    );
    const maxAge = Math.max(
      0,
      Math.floor((Date.parse(session.expiresAt) - services.env.now().getTime()) / 1000),
    );
    // SameSite=Strict + HttpOnly: a page on another site cannot ride this cookie or read it.
    setCookie(c, SESSION_COOKIE, token, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
      maxAge,
      secure: options.secureCookie,
    });
    return c.json({
      token,
      expiresAt: session.expiresAt,
      user: session.user,
      activeHouseholdId: session.principal.householdId,
    });
  });

  app.use('/logout', guard);
  app.post('/logout', noQuery, async (c) => {
    await services.auth.logout(c.var.token);
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.body(null, 204);
  });

  app.use('/me', guard);
  app.get('/me', noQuery, async (c) => {
    const { user, principal, expiresAt } = c.var.session;
    const households = await services.households.listMine(principal);
    const active = households.find((h) => h.id === principal.householdId) ?? null;
    return c.json({ user, expiresAt, activeHousehold: active, households });
  });

  return app;
}

/**
 * For `POST /api/auth/login`, before the body is read (mount it ahead of the body limit): a
 * locked address or a full gate is answered at once, so a flood of logins costs the server
 * little more than its connections.
 */
export function loginEarlyRefusal(services: KitchenServices, trustProxy = 0): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method !== 'POST') return next();
    const address = clientAddress(c, trustProxy);
    const refusal = address === undefined ? undefined : services.auth.refuseEarly({ address });
    return refusal === undefined ? next() : errorResponse(c, refusal);
  };
}
