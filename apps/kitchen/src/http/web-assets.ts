import { readFile, stat } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import type { Context, MiddlewareHandler } from 'hono';
import { SECURITY_HEADERS as COMMON_HEADERS } from '@reins/server';

export interface WebAssetsOptions {
  /** The built pages (`apps/web/dist`): index.html and assets/. */
  readonly root: string;
}

/**
 * The page's Content-Security-Policy: everything from this origin only, no inline script or
 * style (the build emits none), no images from anywhere else (model output cannot make the
 * page fetch), no plugins, no framing, no `<base>` rewriting.
 */
export const WEB_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** Paths that belong to the APIs: never answered with a page, even when nothing matched. */
const API_PREFIXES = ['/api/', '/v1/'];
const API_EXACT = ['/api', '/v1', '/health', '/metrics'];

export function isApiPath(path: string): boolean {
  return API_EXACT.includes(path) || API_PREFIXES.some((p) => path.startsWith(p));
}

/** The headers every response carries (`@reins/server`'s, one source) plus the page's own. */
const SECURITY_HEADERS: Record<string, string> = {
  ...COMMON_HEADERS,
  'Content-Security-Policy': WEB_CSP,
  'Cross-Origin-Opener-Policy': 'same-origin',
};

/**
 * Serves the built web UI: a file under `root` with its content type (hashed `/assets/*`
 * cached for good, the rest revalidated), and `index.html` for any other page path (the SPA
 * fallback: a GET that accepts HTML, without a file extension). API paths (`/api/*`, `/v1/*`,
 * `/health`, `/metrics`) fall through to their own not-found answers. Nothing outside `root`
 * is ever read.
 */
export function webAssets(options: WebAssetsOptions): MiddlewareHandler {
  const root = resolve(options.root);
  return async (c, next) => {
    const method = c.req.method;
    const path = c.req.path;
    if ((method !== 'GET' && method !== 'HEAD') || isApiPath(path)) return next();
    const file = await fileFor(root, path);
    if (file !== undefined) return send(c, file, path.startsWith('/assets/'));
    if (extname(path) !== '' || !acceptsHtml(c)) return next();
    const index = await fileFor(root, '/index.html');
    if (index === undefined) {
      return c.text('The web UI is not built: run `npm run build`.', 503, SECURITY_HEADERS);
    }
    return send(c, index, false);
  };
}

async function fileFor(root: string, urlPath: string): Promise<string | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0')) return undefined;
  const target = resolve(root, `.${decoded === '/' ? '/index.html' : decoded}`);
  if (target !== root && !target.startsWith(root + sep)) return undefined;
  try {
    return (await stat(target)).isFile() ? target : undefined;
  } catch {
    return undefined;
  }
}

function acceptsHtml(c: Context): boolean {
  const accept = c.req.header('accept') ?? '';
  return accept === '' || accept.includes('text/html') || accept.includes('*/*');
}

async function send(c: Context, file: string, immutable: boolean): Promise<Response> {
  const type = TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
  const body = await readFile(file);
  const headers: Record<string, string> = {
    ...SECURITY_HEADERS,
    'Content-Type': type,
    'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
  };
  if (c.req.method === 'HEAD') return c.body(null, 200, headers);
  return c.body(new Uint8Array(body), 200, headers);
}
