import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { ApiError } from './http-error.js';
import { badCharacter, findBadText, printable } from './request-text.js';

/** Body fields of free text (newlines and tabs allowed): a run's `input` (a question), an `answer`. */
export const FREE_TEXT_KEYS: ReadonlySet<string> = new Set(['input', 'answer']);

/** Request headers the server itself reads, checked like parameters. */
const READ_HEADERS = ['last-event-id'] as const;

const refused = (field: string, problem: string): ApiError =>
  new ApiError(400, 'INVALID_PARAMETER', `${field}: contains ${problem}`);

/** The body rule: every body reader applies it to the parsed JSON before reading a field. */
export function checkBodyText(body: unknown): void {
  const bad = findBadText(body, FREE_TEXT_KEYS);
  if (bad !== undefined) throw refused(bad.field, bad.problem);
}

/**
 * Path parameters (`path.<name>`), query parameters (`query.<key>`) and the headers the server
 * reads (`header.<name>`) by the rule of `request-text.ts`, once for every `/v1` route.
 */
export function refuseBadText(): MiddlewareHandler {
  return async (c, next) => {
    for (const [name, value] of Object.entries(routeParams(c))) {
      const problem = badCharacter(value, false);
      if (problem !== undefined) throw refused(`path.${name}`, problem);
    }
    for (const [key, values] of Object.entries(c.req.queries())) {
      const field = `query.${printable(key)}`;
      const keyProblem = badCharacter(key, false);
      if (keyProblem !== undefined) throw refused(field, `${keyProblem} in its name`);
      for (const value of values) {
        const problem = badCharacter(value, false);
        if (problem !== undefined) throw refused(field, problem);
      }
    }
    for (const name of READ_HEADERS) {
      const problem = badCharacter(c.req.header(name) ?? '', false);
      if (problem !== undefined) throw refused(`header.${name}`, problem);
    }
    await next();
  };
}

/**
 * The decoded path parameters of every route the request matched. A middleware's own
 * `c.req.param()` has none (it reads those of `c.req.routeIndex`), so the index is pointed at
 * each matched route in turn and put back.
 */
export function routeParams(c: Context): Record<string, string> {
  const saved = c.req.routeIndex;
  const out: Record<string, string> = {};
  try {
    for (let i = 0; i < matchedRoutes(c).length; i++) {
      c.req.routeIndex = i;
      Object.assign(out, c.req.param() as Record<string, string>);
    }
  } finally {
    c.req.routeIndex = saved;
  }
  return out;
}
