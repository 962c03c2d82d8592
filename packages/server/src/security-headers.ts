import type { MiddlewareHandler } from 'hono';

/**
 * The headers every response carries (JSON, SSE, errors, the page, its files): no MIME
 * sniffing, no framing by any page (`X-Frame-Options` for old browsers, CSP `frame-ancestors`
 * for the rest), no `Referer` leaking paths or ids to other sites.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

/** Sent when the response has no Content-Security-Policy of its own (a page brings a full one). */
export const FRAME_ANCESTORS_CSP = "frame-ancestors 'none'";

export interface SecurityHeadersOptions {
  /**
   * Paths whose responses may keep a `Cache-Control` their handler set (public static files).
   * Every other response gets `Cache-Control: no-store`, overriding what the handler set (SSE's
   * `no-cache`); these get `no-store` only when they set none. Default: no path.
   */
  readonly mayCache?: (path: string) => boolean;
}

/**
 * Adds `SECURITY_HEADERS`, CSP `frame-ancestors 'none'` (unless the response has a CSP) and
 * `Cache-Control: no-store` to every response, error responses (401, 404, 413, 500) and SSE
 * streams included. Mount it first (`app.use('*', securityHeaders())`) so it sees the final
 * response after `onError`/`notFound`.
 */
export function securityHeaders(options: SecurityHeadersOptions = {}): MiddlewareHandler {
  const mayCache = options.mayCache ?? (() => false);
  return async (c, next) => {
    await next();
    const headers = writableHeaders(c);
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) headers.set(name, value);
    if (!headers.has('Content-Security-Policy')) headers.set('Content-Security-Policy', FRAME_ANCESTORS_CSP);
    if (!mayCache(c.req.path) || !headers.has('Cache-Control')) headers.set('Cache-Control', 'no-store');
  };
}

/** The response's headers, copying the response first when they are immutable (e.g. `Response.redirect`). */
function writableHeaders(c: Parameters<MiddlewareHandler>[0]): Headers {
  try {
    c.res.headers.set('X-Content-Type-Options', 'nosniff');
  } catch {
    c.res = new Response(c.res.body, c.res); // hono's setter copies it into a mutable response
  }
  return c.res.headers;
}
