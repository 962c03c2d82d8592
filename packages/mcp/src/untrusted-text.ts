/**
 * Text from an MCP server (tool descriptions, error messages, progress messages) is written by
 * someone else and read by our model: control characters (terminal escapes, bidi overrides,
 * NULs) are removed and the length is capped, so a server cannot hide instructions in
 * invisible text or flood the prompt.
 */
// C0/C1 controls except tab and newline, plus bidi overrides/isolates and zero-width marks.
// Matching control characters is the point of this pattern.
const UNSAFE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

export function untrustedText(text: unknown, maxLength: number): string {
  if (typeof text !== 'string') return '';
  const clean = text.replace(UNSAFE, '').replace(/\r\n?/g, '\n').trim();
  return clean.length <= maxLength ? clean : `${clean.slice(0, Math.max(0, maxLength - 1))}…`;
}
