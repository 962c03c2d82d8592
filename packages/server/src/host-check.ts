import type { MiddlewareHandler } from 'hono';
import { errorBody } from './http-error.js';

/**
 * The names of this machine, allowed on any port: a DNS-rebinding page reaches a loopback
 * server under *its own* name (`Host: evil.example:8787`), never under these, and the port
 * adds nothing (every port of 127.0.0.1 is this machine) — so ephemeral test ports need no setup.
 */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/**
 * Which `Host` headers a server answers: `'any'` (no check: a proxy in front checks it), or a
 * list of `name` (any port) and `name:port` (that port only) entries, matched case-insensitively.
 */
export type AllowedHosts = 'any' | readonly string[];

/** Splits `REINS_ALLOWED_HOSTS`-style text (`kitchen.example, kitchen.example:8443`) into entries. */
export function parseAllowedHosts(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
}

/** Whether `host` (a `Host` header: `name`, `name:port`, `[v6]:port`) is one of `allowed`. */
export function hostAllowed(host: string, allowed: AllowedHosts): boolean {
  if (allowed === 'any') return true;
  const wanted = splitHost(host);
  if (wanted === undefined) return false;
  return allowed.some((entry) => {
    const e = splitHost(entry);
    return e !== undefined && e.name === wanted.name && (e.port === undefined || e.port === wanted.port);
  });
}

/** `name[:port]` (lower case, `[::1]` bracketed, a trailing dot dropped); undefined when it is not one. */
function splitHost(host: string): { name: string; port: string | undefined } | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[^[\]:/@\s]+)(?::(\d{1,5}))?$/.exec(host.trim().toLowerCase());
  const name = match?.[1]?.replace(/\.$/, '');
  return name === undefined || name === '' ? undefined : { name, port: match?.[2] };
}

/**
 * DNS rebinding: answers a request whose `Host` (or, without one, its URL's host) is not
 * allowed with 421 `MISDIRECTED_REQUEST`, before any route runs. Mount it before the routes
 * and after `securityHeaders` (so the refusal carries the headers too).
 */
export function hostCheck(allowed: AllowedHosts): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    if (!hostAllowed(host, allowed)) {
      return c.json(
        errorBody('MISDIRECTED_REQUEST', `this server does not answer for host ${JSON.stringify(host)}`),
        421,
      );
    }
    await next();
  };
}
