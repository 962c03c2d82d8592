import type { Context } from 'hono';
import { invalid } from '../domain/errors.js';

/** The JSON body; an empty body reads as `{}` (for actions like "use up" with no options). */
export async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  const type = c.req.header('content-type') ?? '';
  if (!type.toLowerCase().startsWith('application/json'))
    throw invalid('(body)', 'expected application/json');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalid('(body)', 'the body is not valid JSON');
  }
}

/** Query parameters as one object; each key once (a repeated key is refused, not silently merged). */
export function readQuery(c: Context): Record<string, string> {
  const all = c.req.queries();
  const out: Record<string, string> = {};
  for (const [key, values] of Object.entries(all)) {
    if (values.length > 1) throw invalid(key, `${key} given more than once`);
    if (values[0] !== undefined) out[key] = values[0];
  }
  return out;
}
