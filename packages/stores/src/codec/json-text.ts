import type { Json } from './json.js';

/** The value a string holds as JSON text (objects and arrays only), if it does. */
export function parseJsonText(text: string): Json | undefined {
  if (!/^[[{]/.test(text)) return undefined;
  try {
    const parsed = JSON.parse(text) as Json;
    return typeof parsed === 'object' && parsed !== null ? parsed : undefined;
  } catch {
    return undefined;
  }
}
