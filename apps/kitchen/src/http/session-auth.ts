import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { KitchenError } from '../domain/errors.js';
import type { AuthService, Session } from '../services/auth-service.js';

export const SESSION_COOKIE = 'kitchen_session';

export interface AuthVariables {
  session: Session;
  token: string;
}

/** `Authorization: Bearer <token>` first, then the session cookie. */
export function tokenOf(c: Context): string | undefined {
  const header = c.req.header('authorization');
  if (header !== undefined) return /^Bearer\s+(\S+)$/i.exec(header)?.[1];
  return getCookie(c, SESSION_COOKIE);
}

export type SessionGuard = MiddlewareHandler<{ Variables: AuthVariables }>;

/** Resolves the session or answers 401; handlers get the trusted principal from `c.var.session`. */
export function requireSession(auth: AuthService): SessionGuard {
  return async (c, next) => {
    const token = tokenOf(c);
    const session = token === undefined ? null : await auth.authenticate(token);
    if (token === undefined || session === null)
      throw new KitchenError('UNAUTHENTICATED', 'sign in first (Authorization: Bearer <token>)');
    c.set('session', session);
    c.set('token', token);
    await next();
  };
}
