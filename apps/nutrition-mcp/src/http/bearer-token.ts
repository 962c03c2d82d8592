import { createHash, timingSafeEqual } from 'node:crypto';

/** Host names that only this machine can reach: the server may run there without a token. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', '[::1]', 'localhost']);

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host.trim().toLowerCase());
}

/** What a bearer token may hold (RFC 6750 `b64token`), and at least 16 of it: no guessable word. */
const TOKEN = /^[A-Za-z0-9\-._~+/]{16,}=*$/;

/**
 * Why the server must not start with this host and token, or `undefined` when it may: a
 * non-loopback host needs a token, and a token must be usable in an `Authorization` header.
 */
export function tokenProblem(host: string, token: string | undefined): string | undefined {
  if (token !== undefined && !TOKEN.test(token)) {
    return 'NUTRITION_MCP_TOKEN must be at least 16 characters of A-Z a-z 0-9 - . _ ~ + / (then any =)';
  }
  if (token === undefined && !isLoopbackHost(host)) {
    return `--host ${host} is reachable from other machines: set NUTRITION_MCP_TOKEN (clients then send Authorization: Bearer <token>), or bind 127.0.0.1, ::1 or localhost`;
  }
  return undefined;
}

/** Whether `header` is `Bearer <token>`, compared in constant time. */
export function carriesToken(header: string | null, token: string): boolean {
  const match = /^Bearer[ ]+(\S+)$/.exec(header?.trim() ?? '');
  if (match?.[1] === undefined) return false;
  const digest = (value: string): Buffer => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(match[1]), digest(token));
}
