import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { etagOf, parseIfMatch, type WriteOptions } from '../domain/versions.js';

/** The request's `If-Match` for a versioned write (absent: unconditional, last write wins). */
export function writeOptions(c: Context): WriteOptions {
  const ifMatch = parseIfMatch(c.req.header('if-match'));
  return ifMatch === undefined ? {} : { ifMatch };
}

/** A versioned row as JSON, with its `ETag` (`"<id>-v<version>"`). */
export function versioned(
  c: Context,
  row: { readonly id: string; readonly version: number },
  status: ContentfulStatusCode = 200,
): Response {
  c.header('ETag', etagOf(row.id, row.version));
  return c.json(row, status);
}
