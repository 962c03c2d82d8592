/**
 * The one rule for text that comes from a request (JSON body fields at any depth and their
 * keys, query and path parameters, headers a server reads): no NUL, no other C0 control, no
 * DEL or C1 control, no lone surrogate. PostgreSQL (and PGlite) refuse NUL in `text`, so a
 * NUL that reached a store came back a 500; the other controls are refused so that what is
 * stored prints the same everywhere. Tab, newline and carriage return are allowed only in
 * the free-text fields each app names (here: a run's `input`, an `answer`). The Reins server
 * and the kitchen REST API both apply this rule.
 */

/** What is wrong with `text` (e.g. `a NUL byte`), or undefined when it may be stored. */
export function badCharacter(text: string, allowLineBreaks: boolean): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0) return 'a NUL byte';
    if (code < 0x20) {
      if (allowLineBreaks && (code === 0x09 || code === 0x0a || code === 0x0d)) continue;
      return `a control character (${codePoint(code)})`;
    }
    if (code >= 0x7f && code <= 0x9f) return `a control character (${codePoint(code)})`;
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = text.charCodeAt(i + 1);
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        i++; // a pair: one character outside the BMP
        continue;
      }
      return `a lone surrogate (${codePoint(code)})`;
    }
  }
  return undefined;
}

export interface BadText {
  /** The field path, e.g. `ingredients.1.name`, `query.q`, `path.id`. */
  readonly field: string;
  readonly problem: string;
}

/** A field path safe to print: a key's own control characters are shown escaped. */
export function printable(segment: string): string {
  return badCharacter(segment, false) === undefined ? segment : JSON.stringify(segment).slice(1, -1);
}

interface Node {
  readonly value: unknown;
  readonly key: string | undefined;
  readonly parent: Node | undefined;
  /** Under a free-text key (array items inherit their array's). */
  readonly freeText: boolean;
}

/**
 * The first bad string in a parsed JSON value, keys included, in document order. Iterative,
 * and paths are built only for the field reported: a deeply nested body (the size limit
 * allows ~30 000 levels) neither overflows the stack nor costs quadratic time.
 */
export function findBadText(value: unknown, freeTextKeys: ReadonlySet<string>): BadText | undefined {
  const stack: Node[] = [{ value, key: undefined, parent: undefined, freeText: false }];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    const current = node.value;
    if (typeof current === 'string') {
      const problem = badCharacter(current, node.freeText);
      if (problem !== undefined) return { field: fieldName(node), problem };
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--)
        stack.push({ value: current[i], key: String(i), parent: node, freeText: node.freeText });
    } else if (typeof current === 'object' && current !== null) {
      const entries = Object.entries(current);
      for (const [key] of entries) {
        const problem = badCharacter(key, false);
        if (problem !== undefined)
          return {
            field: fieldName({ value: key, key, parent: node, freeText: false }),
            problem: `${problem} in its name`,
          };
      }
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i] ?? ['', undefined];
        stack.push({ value: child, key, parent: node, freeText: freeTextKeys.has(key) });
      }
    }
  }
  return undefined;
}

function fieldName(node: Node): string {
  const path: string[] = [];
  for (let at: Node | undefined = node; at?.key !== undefined; at = at.parent) path.push(printable(at.key));
  return path.length === 0 ? '(body)' : path.reverse().join('.');
}

function codePoint(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}
