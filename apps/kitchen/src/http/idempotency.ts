import { createHash } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { IdempotencyService } from '../services/idempotency-service.js';
import type { AuthVariables } from './session-auth.js';

/**
 * `Idempotency-Key` on the POSTs of a route group (after its session guard): a POST carrying
 * the header runs once per household, user and key; its answer (status, body, ETag) is stored
 * and a repeat within 24 h gets it back with `Idempotent-Replayed: true`, running nothing. A
 * 5xx is not stored (the key is given back, so a retry runs). Without the header, nothing changes.
 */
export function idempotent(service: IdempotencyService): MiddlewareHandler<{ Variables: AuthVariables }> {
  return async (c, next) => {
    const key = c.req.header('idempotency-key');
    if (c.req.method !== 'POST' || key === undefined) return next();
    // The body as sent (hono keeps it: the handler reads it again).
    const body = await c.req.text();
    const requestHash = createHash('sha256')
      .update(`${c.req.method} ${c.req.path}\n`)
      .update(body)
      .digest('hex');
    const claim = await service.claim(c.var.session.principal, key, requestHash);
    if (claim.kind === 'replay') {
      c.header('Idempotent-Replayed', 'true');
      if (claim.etag !== null) c.header('ETag', claim.etag);
      if (claim.body === '') return c.body(null, claim.status as ContentfulStatusCode);
      c.header('Content-Type', 'application/json');
      return c.body(claim.body, claim.status as ContentfulStatusCode);
    }
    try {
      await next();
    } catch (error) {
      await service.release(claim.scope);
      throw error;
    }
    if (c.res.status >= 500) return service.release(claim.scope);
    await service.complete(claim.scope, {
      status: c.res.status,
      body: await c.res.clone().text(),
      etag: c.res.headers.get('etag'),
    });
  };
}
