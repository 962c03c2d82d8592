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
  /** Seconds from `Retry-After` (429 `RATE_LIMITED`, 503 `SERVICE_UNAVAILABLE`), when sent. */
  readonly retryAfter?: number;
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

/** Headers of a conditional or repeatable write (see `etag` and `draftKey`). */
export interface WriteHeaders {
  /** `If-Match`: the write applies only to this version (else 412 `PRECONDITION_FAILED`). */
  readonly ifMatch?: string;
  /** `Idempotency-Key` of a POST: a repeat within 24 h gets the first answer back, nothing twice. */
  readonly idempotencyKey?: string;
}

/** The kitchen's ETag of a fridge item, recipe or meal plan entry as listed (`"<id>-v<version>"`). */
export const etag = (row: { readonly id: string; readonly version: number }): string =>
  `"${row.id}-v${row.version}"`;

/** 128 random bits as hex (`crypto.randomUUID` exists only in secure contexts; this works on plain HTTP too). */
function randomKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * One `Idempotency-Key` per form draft: sending the same body again (a double click, a retry
 * after a lost answer) reuses the key, so the server creates one row; another body gets a
 * new key, and so does the next draft after `done()`.
 */
export function draftKey(): { key(body: unknown): string; done(): void } {
  let last: { body: string; key: string } | null = null;
  return {
    key(body) {
      const text = JSON.stringify(body);
      if (last === null || last.body !== text) last = { body: text, key: randomKey() };
      return last.key;
    },
    done() {
      last = null;
    },
  };
}

export async function api<T>(
  method: string,
  path: string,
  body?: unknown,
  write: WriteHeaders = {},
): Promise<ApiResult<T>> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers: {
        accept: 'application/json',
        ...authHeaders(),
        ...writeHeaders(method),
        ...(write.ifMatch === undefined ? {} : { 'if-match': write.ifMatch }),
        ...(write.idempotencyKey === undefined ? {} : { 'idempotency-key': write.idempotencyKey }),
      },
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
  const retryAfter = Number(response.headers.get('retry-after') ?? NaN);
  return {
    ok: false,
    error: {
      code: typeof error?.code === 'string' ? error.code : `HTTP_${response.status}`,
      message: typeof error?.message === 'string' ? error.message : response.statusText,
      status: response.status,
      ...(Number.isFinite(retryAfter) && retryAfter >= 0 ? { retryAfter } : {}),
    },
  };
}
