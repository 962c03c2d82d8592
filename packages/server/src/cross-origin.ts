import type { Context, MiddlewareHandler } from 'hono';
import { errorBody } from './http-error.js';

/** Methods that change nothing: never checked (a GET stays a plain link, an `<img>`, a reload). */
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** `Sec-Fetch-Site` of a request this origin's own page made, or the user made (typed, bookmarked). */
const OWN_FETCH_SITES: ReadonlySet<string> = new Set(['same-origin', 'none']);

/**
 * `text` as an origin (`scheme://host[:port]`, lower case, the default port dropped) when it is
 * exactly an http(s) origin — a trailing `/` at most, no path, query, fragment or credentials;
 * undefined otherwise.
 */
export function normalizeOrigin(text: string): string | undefined {
  const trimmed = text.trim();
  if (!/^https?:\/\/[^/?#@\s]+\/?$/i.test(trimmed)) return undefined;
  try {
    return new URL(trimmed).origin;
  } catch {
    return undefined;
  }
}

/** Splits `REINS_ALLOWED_ORIGINS`-style text (`https://a.example, https://b.example:8443`) into entries. */
export function parseAllowedOrigins(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

export interface CrossOriginOptions {
  /**
   * Origins allowed besides the request's own (`https://kitchen.example`): a page there may
   * change things here. Each must be an http(s) origin (see `normalizeOrigin`), else the guard
   * is not built (`TypeError`). Default: none.
   */
  readonly allowedOrigins?: readonly string[];
}

/**
 * Cross-site request forgery: a request that may change something (any method but GET, HEAD,
 * OPTIONS) must come from this server's own origin — its `Origin` is the request's own scheme
 * and `Host`, or one of `allowedOrigins` (else 403 `CROSS_ORIGIN`); without `Origin`,
 * `Sec-Fetch-Site` must be `same-origin` or `none` (else 403) — and must carry
 * `Content-Type: application/json` (else 415 `UNSUPPORTED_MEDIA_TYPE`), which a page elsewhere
 * cannot send without a CORS preflight this server never grants.
 *
 * A request with neither header (curl, another server) passes the origin check: browsers send
 * `Origin` on every cross-origin POST, PUT, PATCH and DELETE (and `Sec-Fetch-Site` on every
 * request), so only a non-browser client lacks both, and it holds its own credentials.
 *
 * Mount it after `hostCheck` (the `Host` compared with is then one this server answers) and
 * before the routes.
 */
export function crossOriginGuard(options: CrossOriginOptions = {}): MiddlewareHandler {
  const allowed = new Set(
    (options.allowedOrigins ?? []).map((entry) => {
      const origin = normalizeOrigin(entry);
      if (origin === undefined)
        throw new TypeError(
          `allowedOrigins: ${JSON.stringify(entry)} is not an origin such as https://kitchen.example`,
        );
      return origin;
    }),
  );
  return async (c, next) => {
    const method = c.req.method.toUpperCase();
    if (SAFE_METHODS.has(method)) return next();
    const foreign = foreignOrigin(c, allowed);
    if (foreign !== undefined) return c.json(errorBody('CROSS_ORIGIN', `${method} refused: ${foreign}`), 403);
    const type = c.req.header('content-type');
    if (mediaType(type) !== 'application/json') {
      const given = type === undefined ? 'none' : JSON.stringify(type);
      return c.json(
        errorBody(
          'UNSUPPORTED_MEDIA_TYPE',
          `${method} needs Content-Type: application/json (given: ${given})`,
        ),
        415,
      );
    }
    await next();
  };
}

/** Why the request is not from this origin (nor an allowed one); undefined when it is, or cannot tell. */
function foreignOrigin(c: Context, allowed: ReadonlySet<string>): string | undefined {
  const origin = c.req.header('origin');
  if (origin === undefined) {
    const site = c.req.header('sec-fetch-site')?.trim().toLowerCase();
    return site === undefined || OWN_FETCH_SITES.has(site)
      ? undefined
      : `a ${site} request without Origin (Sec-Fetch-Site: ${site})`;
  }
  const normalized = normalizeOrigin(origin);
  if (normalized !== undefined && (normalized === ownOrigin(c) || allowed.has(normalized))) return undefined;
  return `origin ${JSON.stringify(origin)} is not this server's origin nor an allowed one`;
}

/** The request's own origin: its URL's scheme and its `Host` (without one, the URL's host). */
function ownOrigin(c: Context): string | undefined {
  const url = new URL(c.req.url);
  return normalizeOrigin(`${url.protocol}//${c.req.header('host') ?? url.host}`);
}

/** `application/json; charset=utf-8` → `application/json`. */
function mediaType(header: string | undefined): string | undefined {
  return header?.split(';')[0]?.trim().toLowerCase();
}
