import type { z } from 'zod';
import { describeThrown } from '../errors.js';

export interface Issue {
  readonly path: string;
  readonly message: string;
}

export type Checked =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly issues: Issue[] };

/**
 * `schema.safeParse` that never throws (an async refinement or a throwing transform is
 * reported as an issue) and, for inputs, refuses keys the schema would silently drop — so a
 * model-invented `space_id` is an error even inside a nested non-strict object.
 */
export function checkAgainst(
  schema: z.ZodType,
  value: unknown,
  options: { refuseStrayKeys: boolean },
): Checked {
  let parsed;
  try {
    parsed = schema.safeParse(value);
  } catch (thrown) {
    return {
      ok: false,
      issues: [{ path: '(root)', message: `schema could not run: ${describeThrown(thrown)}` }],
    };
  }
  if (!parsed.success) {
    return {
      ok: false,
      issues: parsed.error.issues.map((i) => ({ path: i.path.join('.') || '(root)', message: i.message })),
    };
  }
  if (options.refuseStrayKeys) {
    const stray = strayKeys(value, parsed.data, '');
    if (stray.length > 0) {
      return {
        ok: false,
        issues: stray.map((path) => ({ path, message: `unknown key ${JSON.stringify(path)}` })),
      };
    }
  }
  return { ok: true, value: parsed.data };
}

export function describeIssues(issues: readonly Issue[]): string {
  return issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
}

/** Paths of keys present in `raw` but missing from what the schema returned. */
function strayKeys(raw: unknown, parsed: unknown, path: string): string[] {
  if (Array.isArray(raw) && Array.isArray(parsed) && raw.length === parsed.length) {
    return raw.flatMap((item, i) => strayKeys(item, parsed[i], `${path}[${i}]`));
  }
  if (!isRecord(raw) || !isRecord(parsed)) return [];
  const stray: string[] = [];
  for (const key of Object.keys(raw)) {
    const keyPath = path === '' ? key : `${path}.${key}`;
    if (!Object.hasOwn(parsed, key)) stray.push(keyPath);
    else stray.push(...strayKeys(raw[key], parsed[key], keyPath));
  }
  return stray;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
