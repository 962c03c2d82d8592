import type { Principal } from 'reins';
import { SESSION_COOKIE } from '../http/session-auth.js';
import type { AuthService } from '../services/auth-service.js';
import { toReinsPrincipal } from '../services/principal.js';

/** The kitchen session token of a request: `Authorization: Bearer …`, else the session cookie. */
export function sessionToken(request: Request): string | undefined {
  const header = request.headers.get('authorization');
  if (header !== null) return /^Bearer\s+(\S+)$/i.exec(header)?.[1];
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name !== SESSION_COOKIE) continue;
    try {
      return decodeURIComponent(value.join('='));
    } catch {
      return undefined; // a malformed cookie (a lone `%`) is no session: 401, not a 500
    }
  }
  return undefined;
}

/**
 * `/v1/*` authentication for `@reins/server`: the kitchen session (the same token as the REST
 * API) → the Reins principal (user id, active household as a trusted claim). No session → 401.
 */
export function kitchenAuthenticate(auth: AuthService): (request: Request) => Promise<Principal | undefined> {
  return async (request) => {
    const token = sessionToken(request);
    if (token === undefined) return undefined;
    const session = await auth.authenticate(token);
    return session === null ? undefined : toReinsPrincipal(session.principal);
  };
}
