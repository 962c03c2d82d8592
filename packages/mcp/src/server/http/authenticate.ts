import type { AuthInfo } from '@modelcontextprotocol/server';
import type { Principal } from 'reins';
import { authInfoFor } from '../principal-auth-info.js';
import { jsonRpcError, UNAUTHORIZED } from './json-rpc-errors.js';

/**
 * Maps a bearer token to the caller, or `undefined` for a token that is not valid. Supplied
 * by the app (its sessions, API keys, JWT check). May throw or reject: that is a 401 too
 * (never a 500 that tells a prober more).
 */
export type Authenticate = (
  token: string,
  request: Request,
) => Principal | undefined | Promise<Principal | undefined>;

export type AuthOutcome =
  | { readonly ok: true; readonly principal: Principal | undefined; readonly authInfo: AuthInfo | undefined }
  | { readonly ok: false; readonly response: Response };

// The scheme name is case-insensitive (RFC 9110 §11.1): `bearer …` is a bearer token too.
const BEARER = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)$/i;

/** `'none'` serves every request as the fallback principal: a deliberate choice, e.g. for a local dev server. */
export async function authenticateRequest(
  request: Request,
  authenticate: Authenticate | 'none',
): Promise<AuthOutcome> {
  if (authenticate === 'none') return { ok: true, principal: undefined, authInfo: undefined };
  const header = request.headers.get('authorization') ?? '';
  const token = BEARER.exec(header.trim())?.[1];
  if (token === undefined) return refuse('missing bearer token', 'invalid_request');
  let principal: Principal | undefined;
  try {
    principal = await authenticate(token, request);
  } catch {
    principal = undefined;
  }
  if (principal === undefined) return refuse('invalid bearer token', 'invalid_token');
  return { ok: true, principal, authInfo: authInfoFor(principal, token) };
}

function refuse(message: string, error: string): AuthOutcome {
  return {
    ok: false,
    response: jsonRpcError(401, UNAUTHORIZED, `Unauthorized: ${message}`, {
      'www-authenticate': `Bearer error="${error}"`,
    }),
  };
}
