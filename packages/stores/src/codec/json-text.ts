import type { Json } from './json.js';

/**
 * The last strings parsed, with what they hold: an event's model reply is parsed when the
 * encoder weighs it, when it is registered, and again by the check's decode. The parsed trees
 * are shared and never mutated (the codec builds new objects; `decode` returns copies).
 */
const recent = new Map<string, Json | undefined>();
const RECENT_MAX = 16;

/** The value a string holds as JSON text (objects and arrays only), if it does. */
export function parseJsonText(text: string): Json | undefined {
  const first = text.charCodeAt(0);
  if (first !== 0x7b && first !== 0x5b) return undefined; // not `{` or `[`: most strings, decided without a regex
  if (recent.has(text)) return recent.get(text);
  let value: Json | undefined;
  try {
    const parsed = JSON.parse(text) as Json;
    value = typeof parsed === 'object' && parsed !== null ? parsed : undefined;
  } catch {
    value = undefined;
  }
  if (recent.size >= RECENT_MAX) recent.clear();
  recent.set(text, value);
  return value;
}
