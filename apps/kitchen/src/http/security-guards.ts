import type { Env, Hono } from 'hono';
import { hostCheck, LOOPBACK_HOSTS, securityHeaders, type AllowedHosts } from '@reins/server';
import { isApiPath } from './web-assets.js';

/**
 * `@reins/server`'s guards on a kitchen app, before its routes: the security headers on every
 * response (`Cache-Control: no-store` on all of `/api`, `/v1`, `/health`, `/metrics`, errors
 * included; the page's files keep their own caching), then the Host check (DNS rebinding):
 * the loopback names on any port plus `allowedHosts` (`REINS_ALLOWED_HOSTS`), or `'any'`.
 */
export function useSecurityGuards<E extends Env>(app: Hono<E>, allowedHosts: AllowedHosts = []): void {
  app.use('*', securityHeaders({ mayCache: (path) => !isApiPath(path) }));
  app.use('*', hostCheck(allowedHosts === 'any' ? 'any' : [...LOOPBACK_HOSTS, ...allowedHosts]));
}
