/**
 * Finding JSON inside model text: code fences, the first balanced object, nesting depth.
 * Pure string scanning — no parsing, no allocation beyond the slices returned.
 */

const FENCE = /```[A-Za-z0-9_-]*[ \t]*\r?\n?([\s\S]*?)```/g;

/** Contents of fenced code blocks, in order, that contain an opening brace. */
export function fencedBlocks(text: string, limit = 4): string[] {
  const blocks: string[] = [];
  for (const match of text.matchAll(FENCE)) {
    const body = match[1];
    if (body !== undefined && body.includes('{')) blocks.push(body.trim());
    if (blocks.length >= limit) break;
  }
  return blocks;
}

/**
 * Balanced `{…}` spans starting at successive `{` outside strings. Both quote styles count
 * as strings (JSON5 allows single quotes). An object still open at the end of the text is
 * returned last, running to the end (truncated output, for the repair step).
 */
export function balancedObjects(text: string, limit = 4): { complete: string[]; truncated?: string } {
  const complete: string[] = [];
  let start = text.indexOf('{');
  while (start !== -1 && complete.length < limit) {
    const end = matchingBrace(text, start);
    if (end === -1) return { complete, truncated: text.slice(start) };
    complete.push(text.slice(start, end + 1));
    start = text.indexOf('{', end + 1);
  }
  return { complete };
}

function matchingBrace(text: string, start: number): number {
  let depth = 0;
  let quote = '';
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (quote !== '') {
      if (ch === '\\') i++;
      else if (ch === quote) quote = '';
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return i;
  }
  return -1;
}

/**
 * Maximum bracket nesting, counting only double-quoted strings as strings. Over-counts
 * braces inside single-quoted strings, which errs on the safe side of a cap.
 */
export function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92 /* \ */) i++;
      else if (ch === 34 /* " */) inString = false;
      continue;
    }
    if (ch === 34) inString = true;
    else if (ch === 123 /* { */ || ch === 91 /* [ */) {
      if (++depth > max) max = depth;
    } else if (ch === 125 /* } */ || ch === 93 /* ] */) depth--;
  }
  return max;
}

/**
 * Maximum nesting of a parsed value (an object or array counts 1, like a bracket in
 * `nestingDepth`). Iterative, so a value too deep for recursion is measured, not thrown on.
 * Stops early once `limit` is exceeded.
 */
export function valueDepth(value: unknown, limit = Infinity): number {
  let max = 0;
  const values: unknown[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const top = values.pop();
    const depth = depths.pop() as number;
    if (typeof top !== 'object' || top === null) continue;
    if (depth > max) max = depth;
    if (max > limit) return max;
    for (const key in top) {
      const child = (top as Record<string, unknown>)[key];
      if (typeof child === 'object' && child !== null) {
        values.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return max;
}
