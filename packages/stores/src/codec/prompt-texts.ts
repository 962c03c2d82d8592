import { createHash } from 'node:crypto';
import { isObject, setKey, type Json, type JsonObject } from './json.js';

/**
 * A kept prompt's system message at least this long is stored once, by hash, not in every run
 * (the kitchen's is 7.8 KB, sent twice per run: with the tool catalog and for the last step).
 */
export const MIN_INTERNED_CHARS = 512;
/** What a system message's `content` holds in a stored body when its text is stored apart. */
const REF_PREFIX = '\u0000reins-text:';
// eslint-disable-next-line no-control-regex -- the reference starts with NUL, which no prompt text does
const REF = /^\u0000reins-text:([0-9a-f]{64})$/;
/** A reference as a body's JSON text writes it (`\u0000` escaped). */
const REF_IN_BODY = /\\u0000reins-text:([0-9a-f]{64})/g;
/** How many texts (and their hashes) a process holds; there is one per agent configuration. */
const MAX_HELD = 256;

/**
 * Texts the run codec stores apart from the events (`RunCodec` with `texts`): the system
 * messages of kept prompts (the prompt debugger, issue 18.5), the same in every run of an
 * agent. `intern` is what the codec calls on the way in, `expand` on the way out; where the
 * texts are kept is the owner's business (`SqlPromptTexts`: a table; `stored()` for tests).
 */
export class PromptTexts {
  readonly #hashes = new Map<string, string>();
  readonly #texts = new Map<string, string>();

  /**
   * `event` with each long system message of its kept prompt replaced by a reference, the
   * texts it refers to added to `used` (by hash); the same object when nothing was replaced.
   * A system message that happens to look like a reference is stored apart too, so `expand`
   * gives back exactly what came in.
   */
  intern(event: JsonObject, used: Map<string, string>): JsonObject {
    const prompt = event['prompt'];
    if (!isObject(prompt) || !Array.isArray(prompt['parts'])) return event;
    const parts = prompt['parts'];
    let copy: Json[] | undefined;
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i] as Json;
      const content = isObject(part) && part['role'] === 'system' ? part['content'] : undefined;
      if (typeof content !== 'string') continue;
      if (content.length < MIN_INTERNED_CHARS && !content.startsWith(REF_PREFIX)) continue;
      const hash = this.#hashOf(content);
      used.set(hash, content);
      copy ??= parts.slice();
      copy[i] = withContent(part as JsonObject, REF_PREFIX + hash);
    }
    return copy === undefined ? event : withPrompt(event, { ...prompt, parts: copy });
  }

  /** `event` with its references replaced by their texts (the same object when it has none). */
  expand(event: JsonObject, where: string): JsonObject {
    const prompt = event['prompt'];
    if (!isObject(prompt) || !Array.isArray(prompt['parts'])) return event;
    const parts = prompt['parts'];
    let copy: Json[] | undefined;
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i] as Json;
      const content = isObject(part) && part['role'] === 'system' ? part['content'] : undefined;
      const hash = typeof content === 'string' ? REF.exec(content)?.[1] : undefined;
      if (hash === undefined) continue;
      const text = this.#texts.get(hash);
      if (text === undefined) throw new MissingTextError(`${where} refers to stored text ${hash}, not found`);
      copy ??= parts.slice();
      copy[i] = withContent(part as JsonObject, text);
    }
    return copy === undefined ? event : withPrompt(event, { ...prompt, parts: copy });
  }

  /** The hashes the bodies refer to whose texts this process does not hold. */
  missingIn(bodies: readonly string[]): string[] {
    const missing = new Set<string>();
    for (const body of bodies) {
      if (!body.includes('reins-text:')) continue;
      for (const match of body.matchAll(REF_IN_BODY)) {
        const hash = match[1] as string;
        if (!this.#texts.has(hash)) missing.add(hash);
      }
    }
    return [...missing];
  }

  /** Holds a text read back from where the texts are kept, after checking it against its hash. */
  hold(hash: string, text: string): void {
    if (sha256(text) !== hash) throw new MissingTextError(`stored text ${hash} does not match its hash`);
    remember(this.#texts, hash, text);
  }

  #hashOf(text: string): string {
    let hash = this.#hashes.get(text);
    if (hash === undefined) {
      hash = sha256(text);
      remember(this.#hashes, text, hash);
    }
    remember(this.#texts, hash, text);
    return hash;
  }
}

/** A stored body refers to a text that is not where the texts are kept, or not as it was. */
export class MissingTextError extends Error {
  readonly code = 'MALFORMED';
  constructor(message: string) {
    super(message);
    this.name = 'MissingTextError';
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  if (map.has(key)) return;
  if (map.size >= MAX_HELD) map.delete(map.keys().next().value as K);
  map.set(key, value);
}

function withContent(part: JsonObject, content: string): JsonObject {
  const copy: JsonObject = {};
  for (const key of Object.keys(part)) setKey(copy, key, key === 'content' ? content : (part[key] as Json));
  return copy;
}

function withPrompt(event: JsonObject, prompt: JsonObject): JsonObject {
  const copy: JsonObject = {};
  for (const key of Object.keys(event)) setKey(copy, key, key === 'prompt' ? prompt : (event[key] as Json));
  return copy;
}
