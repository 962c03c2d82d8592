/**
 * What a local JSON Schema reference (`#`, `#/$defs/name`, `#/definitions/name`, any JSON
 * Pointer in the document) points at inside `root`, own keys only; `undefined` for a
 * reference to another document or to nothing. `~1` and `~0` are decoded as JSON Pointer says.
 */
export function localRefTarget(root: unknown, ref: string): unknown {
  if (ref !== '#' && !ref.startsWith('#/')) return undefined;
  let here: unknown = root;
  for (const part of ref.slice(2).split('/')) {
    if (part === '') continue;
    const key = decodeURIComponent(part).replaceAll('~1', '/').replaceAll('~0', '~');
    here =
      typeof here === 'object' && here !== null && !Array.isArray(here) && Object.hasOwn(here, key)
        ? (here as Record<string, unknown>)[key]
        : undefined;
  }
  return here;
}
