/**
 * Text from an MCP server (tool descriptions, error messages, progress messages) is written by
 * someone else and read by our model: control characters (terminal escapes, bidi overrides,
 * NULs) are removed and the length is capped, so a server cannot hide instructions in
 * invisible text or flood the prompt.
 */
// C0/C1 controls except tab and newline; every format character (\p{Cf}: bidi marks, overrides
// and isolates, zero-width marks, the Arabic letter mark, and the tag characters U+E0000–E007F,
// which display as nothing yet reach the model as the ASCII letters they shadow); lone
// surrogates; and variation selectors (U+FE00–FE0F, U+E0100–E01EF), which can carry hidden bytes
// after any character. Matching control characters is the point of this pattern.
const UNSAFE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Cf}\p{Cs}\ufe00-\ufe0f\u{e0100}-\u{e01ef}]/gu;

export function untrustedText(text: unknown, maxLength: number): string {
  if (typeof text !== 'string') return '';
  const clean = text.replace(UNSAFE, '').replace(/\r\n?/g, '\n').trim();
  if (clean.length <= maxLength) return clean;
  let end = Math.max(0, maxLength - 1);
  // Never half of a surrogate pair: the cut goes before the pair.
  const last = clean.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${clean.slice(0, end)}…`;
}
