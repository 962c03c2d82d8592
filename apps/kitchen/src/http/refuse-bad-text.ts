import type { MiddlewareHandler } from 'hono';
import { badCharacter, findBadText, printable, routeParams } from '@reins/server';
import { invalid, type KitchenError } from '../domain/errors.js';

/**
 * Body fields of free text, where tab, newline and carriage return are allowed (their array's
 * strings too): recipe `steps`, a meal plan's or dietary note's `note`, a memory's `text`.
 * Everything else — names, units, tags, labels, ids, usernames, passwords, dates — and every
 * query or path parameter is one line. The rule itself is `request-text.ts` of `@reins/server`.
 */
export const FREE_TEXT_KEYS: ReadonlySet<string> = new Set(['steps', 'note', 'text']);

/** `INVALID_PARAMETER` naming the field, e.g. `ingredients.1.name: contains a NUL byte`. */
export function badTextError(field: string, problem: string): KitchenError {
  return invalid(field, `${field}: contains ${problem}`);
}

/** The body rule (`readJson` applies it to every body it hands a route). */
export function checkBody(body: unknown): void {
  const bad = findBadText(body, FREE_TEXT_KEYS);
  if (bad !== undefined) throw badTextError(bad.field, bad.problem);
}

/**
 * Every route's path parameters (`path.<name>`) and every query parameter (`query.<key>`, key
 * and values) by the same rule, once for the whole API: a route cannot forget it,
 * and a parameter a route ignores is refused too.
 */
export function refuseBadText(): MiddlewareHandler {
  return async (c, next) => {
    for (const [name, value] of Object.entries(routeParams(c))) {
      const problem = badCharacter(value, false);
      if (problem !== undefined) throw badTextError(`path.${name}`, problem);
    }
    for (const [key, values] of Object.entries(c.req.queries())) {
      const field = `query.${printable(key)}`;
      const keyProblem = badCharacter(key, false);
      if (keyProblem !== undefined) throw badTextError(field, `${keyProblem} in its name`);
      for (const value of values) {
        const problem = badCharacter(value, false);
        if (problem !== undefined) throw badTextError(field, problem);
      }
    }
    await next();
  };
}
