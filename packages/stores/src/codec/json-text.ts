import type { Json } from './json.js';

/** The value a string holds as JSON text (objects and arrays only), if it does. */
export function parseJsonText(text: string): Json | undefined {
  const first = text.charCodeAt(0);
  if (first !== 0x7b && first !== 0x5b) return undefined; // not `{` or `[`: most strings, decided without a regex
  try {
    const parsed = JSON.parse(text) as Json;
    return typeof parsed === 'object' && parsed !== null ? parsed : undefined;
  } catch {
    return undefined;
  }
}
