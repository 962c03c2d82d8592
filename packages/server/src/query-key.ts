import { createHash } from 'node:crypto';
import { ANONYMOUS, type Principal } from 'reins';

/**
 * Anonymous: the principal `ANONYMOUS` (id `anonymous`) or any principal with the trusted
 * claim `anonymous: true` (an app that gives each guest an id of its own). Anonymous callers
 * are told apart by address; signed-in ones by who they are.
 */
export function isAnonymous(principal: Principal): boolean {
  return principal.id === ANONYMOUS.id || principal.claims?.['anonymous'] === true;
}

/** A short, stable hash of the query with whitespace collapsed and case folded (seed 003's key). */
export function queryHash(query: string): string {
  return hash(query.trim().replace(/\s+/g, ' ').toLowerCase());
}

// Zero-width and other invisible format characters (Cf), and every whitespace and punctuation character.
const IGNORED = /[\p{Cf}\p{White_Space}\p{P}]/gu;

/**
 * The query as a signed-in caller's rate limit sees it: NFKC, lower case, with whitespace,
 * punctuation (Unicode P) and zero-width (format) characters removed — so "Hello." and
 * "hello\u200b" are the same question as "hello".
 */
export function normalizeQuery(query: string): string {
  return query.normalize('NFKC').toLowerCase().replace(IGNORED, '');
}

export function normalizedQueryHash(query: string): string {
  return hash(normalizeQuery(query));
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
