/**
 * JSON with object keys sorted at every level, so two inputs that differ only in key order
 * compare equal. Used by the repeated-action guard. Inputs are already depth-capped by the
 * decision parser, so the recursion is bounded.
 */
export function canonicalJson(value: unknown): string {
  // Models usually write keys in one order; copy with sorted keys only when some are not.
  return JSON.stringify(keysSorted(value) ? value : sortKeys(value)) ?? 'undefined';
}

function keysSorted(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) return value.every(keysSorted);
  let previous: string | undefined;
  for (const key in value) {
    if (previous !== undefined && key < previous) return false;
    previous = key;
    if (!keysSorted((value as Record<string, unknown>)[key])) return false;
  }
  return true;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const item = sortKeys((value as Record<string, unknown>)[key]);
    // An own `__proto__` key (JSON.parse makes one) stays a key: assigning it would set the prototype.
    if (key === '__proto__')
      Object.defineProperty(sorted, key, { value: item, enumerable: true, writable: true });
    else sorted[key] = item;
  }
  return sorted;
}
