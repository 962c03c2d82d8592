/**
 * The REST client of the kitchen API (`/api/*`) and the Reins server (`/v1/*`), same origin.
 * Failures are data (`{ ok: false, error: { code, message } }`), never thrown: pages show them.
 * The session token from sign-in is sent as a bearer token (the HttpOnly cookie is set too,
 * but the run server authenticates by bearer) and kept in sessionStorage for reloads in this
 * tab only. Every write (POST, PUT, PATCH, DELETE) is sent as `application/json`, a body-less
 * one too: the servers refuse a write of any other type (415), which is what keeps another
 * site's forms from posting here.
 */
export interface ApiError {
  readonly code: string;
  readonly message: string;
  readonly status: number;
}

export type ApiResult<T> =
  { readonly ok: true; readonly data: T } | { readonly ok: false; readonly error: ApiError };

const TOKEN_KEY = 'kitchen.token';
let token: string | null = readToken();

function readToken(): string | null {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setToken(next: string | null): void {
  token = next;
  try {
    if (next === null) sessionStorage.removeItem(TOKEN_KEY);
    else sessionStorage.setItem(TOKEN_KEY, next);
  } catch {
    // kept in memory only
  }
}

export function hasToken(): boolean {
  return token !== null;
}

export function authHeaders(): Record<string, string> {
  return token === null ? {} : { authorization: `Bearer ${token}` };
}

/** The `Content-Type` every write carries, with or without a body (GET and HEAD send none). */
export function writeHeaders(method: string): Record<string, string> {
  return method === 'GET' || method === 'HEAD' ? {} : { 'content-type': 'application/json' };
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<ApiResult<T>> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers: { accept: 'application/json', ...authHeaders(), ...writeHeaders(method) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    return { ok: false, error: { code: 'SERVICE_UNAVAILABLE', message: String(error), status: 0 } };
  }
  if (response.status === 204) return { ok: true, data: undefined as T };
  const parsed: unknown = await response.json().catch(() => null);
  if (response.ok) return { ok: true, data: parsed as T };
  const error = (parsed as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  if (response.status === 401) setToken(null);
  return {
    ok: false,
    error: {
      code: typeof error?.code === 'string' ? error.code : `HTTP_${response.status}`,
      message: typeof error?.message === 'string' ? error.message : response.statusText,
      status: response.status,
    },
  };
}
