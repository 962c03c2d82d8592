import type { Context, MiddlewareHandler } from 'hono';
import { invalid } from '../domain/errors.js';
import { checkBody } from './refuse-bad-text.js';

/**
 * The JSON body; an empty body reads as `{}` (for actions like "use up" with no options). A
 * string with a control character, at any depth, is refused here (`refuse-bad-text.ts`).
 */
export async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  const type = c.req.header('content-type') ?? '';
  if (!type.toLowerCase().startsWith('application/json'))
    throw invalid('(body)', 'expected application/json');
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    throw invalid('(body)', 'the body is not valid JSON');
  }
  checkBody(body);
  return body;
}

/** Query parameters as one object; each key once (a repeated key is refused, not silently merged). */
export function readQuery(c: Context): Record<string, string> {
  const all = c.req.queries();
  // No prototype: a `__proto__` key is a key like any other (refused as unknown, never dropped).
  const out = Object.create(null) as Record<string, string>;
  for (const [key, values] of Object.entries(all)) {
    if (values.length > 1) throw invalid(key, `${key} given more than once`);
    if (values[0] !== undefined) out[key] = values[0];
  }
  return out;
}

/**
 * For a route that takes no query parameters: any is refused, naming it (the README: unknown
 * query parameters are refused, so a `householdId` in a query is an error, never ignored).
 */
export const noQuery: MiddlewareHandler = async (c, next) => {
  const key = Object.keys(c.req.queries())[0];
  if (key !== undefined) throw invalid(key, `unknown query parameter ${JSON.stringify(key)}`);
  await next();
};
