import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import { isIP, isIPv6 } from 'node:net';

/**
 * The client's address from the socket (`@hono/node-server`), never from a header a client can
 * write — unless `trustedProxies` (N ≥ 1) proxies stand in front: then the N-th entry from the
 * right of `X-Forwarded-For`, the address the outermost trusted proxy saw (entries to its left
 * are whatever the client sent). Undefined when there is no socket (`app.request` in tests).
 */
export function clientAddress(c: Context, trustedProxies = 0): string | undefined {
  if (trustedProxies > 0) {
    const forwarded = (c.req.header('x-forwarded-for') ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
    const seen = forwarded[forwarded.length - trustedProxies];
    if (seen !== undefined && isIP(seen) !== 0) return normalizeAddress(seen);
  }
  let address: string | undefined;
  try {
    address = getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
  return address === undefined || address === '' ? undefined : normalizeAddress(address);
}

/**
 * One key per client: an IPv4-mapped IPv6 address is its IPv4 address; an IPv6 address is
 * its /64 (one host usually holds a whole /64, so counting single addresses would let it rotate).
 */
export function normalizeAddress(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped?.[1] !== undefined) return mapped[1];
  const bare = address.split('%')[0] ?? address; // zone index
  if (!isIPv6(bare)) return address;
  const [left = '', right] = bare.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const width = (part: string[]) => part.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const head = groups(left);
  const tail = right === undefined ? [] : groups(right);
  const fill = right === undefined ? [] : Array<string>(8 - width(head) - width(tail)).fill('0');
  const prefix = [...head, ...fill, ...tail].slice(0, 4).map((g) => parseInt(g, 16).toString(16));
  return `${prefix.join(':')}::/64`;
}
