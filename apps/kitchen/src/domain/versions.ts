import { invalid, preconditionFailed } from './errors.js';

/**
 * Optimistic concurrency for fridge items, recipes and meal plan entries (issue 16.14). Each
 * row has a `version` (1 when created, +1 on every change); responses carry it in the JSON and
 * as the strong ETag `"<id>-v<version>"`. A write that sends `If-Match` is applied only when
 * one of its tags is the row's current ETag (or it is `*` and the row exists); otherwise 412
 * `PRECONDITION_FAILED`. A write without `If-Match` is applied as it is: last write wins.
 */
export const etagOf = (id: string, version: number): string => `"${id}-v${version}"`;

/** A parsed `If-Match`: `*`, or the entity tags as sent (quotes and any `W/` kept). */
export type IfMatch = '*' | readonly string[];

/** What a versioned write may be conditioned on. Omitted `ifMatch`: unconditional (last write wins). */
export interface WriteOptions {
  readonly ifMatch?: IfMatch;
}

// RFC 9110 §8.8.3: entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE; etagc = %x21 / %x23-7E / obs-text.
const ENTITY_TAG = /[ \t]*((?:W\/)?"[\x21\x23-\x7e\x80-\xff]*")[ \t]*(?:,|$)/y;

/** The `If-Match` header; absent → undefined. Not `*` nor a list of entity tags → 400 naming `If-Match`. */
export function parseIfMatch(header: string | undefined): IfMatch | undefined {
  if (header === undefined) return undefined;
  if (header.trim() === '*') return '*';
  const tags: string[] = [];
  ENTITY_TAG.lastIndex = 0;
  while (ENTITY_TAG.lastIndex < header.length) {
    const match = ENTITY_TAG.exec(header);
    if (match?.[1] === undefined) break;
    tags.push(match[1]);
    if (tags.length > 20) break;
  }
  if (tags.length === 0 || tags.length > 20 || ENTITY_TAG.lastIndex < header.length)
    throw invalid('If-Match', 'If-Match must be * or the ETag of the row, e.g. "<id>-v3"');
  return tags;
}

/**
 * The versions of row `id` that `ifMatch` accepts: null for any (no header, or `*`). A weak tag
 * (`W/"…"`) never matches: If-Match compares strongly (RFC 9110 §13.1.1).
 */
export function acceptedVersions(id: string, ifMatch: IfMatch | undefined): number[] | null {
  if (ifMatch === undefined || ifMatch === '*') return null;
  const prefix = `"${id}-v`;
  const versions: number[] = [];
  for (const tag of ifMatch) {
    if (!tag.startsWith(prefix) || !tag.endsWith('"')) continue;
    const digits = tag.slice(prefix.length, -1);
    if (/^[1-9]\d{0,8}$/.test(digits)) versions.push(Number(digits));
  }
  return versions;
}

/** Throws 412 `PRECONDITION_FAILED` (with the current version) unless `ifMatch` accepts `version`. */
export function checkIfMatch(what: string, id: string, version: number, ifMatch: IfMatch | undefined): void {
  const accepted = acceptedVersions(id, ifMatch);
  if (accepted !== null && !accepted.includes(version))
    throw preconditionFailed(what, { version, etag: etagOf(id, version) });
}
