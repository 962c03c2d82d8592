import { createHash } from 'node:crypto';
import { isObject, setKey, type Json, type JsonObject } from './json.js';
import { StoredEventError } from './run-codec.js';

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
/** How many texts (and their hashes, and where they were first met) a process holds. */
const MAX_HELD = 256;

/**
 * Texts the run codec stores apart from the events (`RunCodec` with `texts`): the system
 * messages of kept prompts (the prompt debugger, issue 18.5), the same in every run of an
 * agent. Only a text met in two runs is stored apart: one that holds a conversation's
 * context (the server appends it to the instructions) stays in its run's bodies and goes
 * with the run. `intern` is what the codec calls on the way in, `expand` on the way out;
 * where the texts are kept is the owner's business (`SqlPromptTexts`: a table).
 *
 * A text is kept, and hashed, as its JSON string (`JSON.stringify`: well-formed Unicode, NUL
 * escaped), so a database `text` column holds it exactly, whatever the model wrote.
 */
export class PromptTexts {
  /** Each long text's JSON form and hash, by the text (the same string object run after run). */
  readonly #forms = new Map<string, { readonly json: string; readonly hash: string }>();
  /** Texts met in one run so far: the run, by hash. */
  readonly #firstRun = new Map<string, string>();
  /** Texts stored apart (met in two runs, or read back), by hash: their JSON form. */
  readonly #shared = new Map<string, string>();

  /**
   * `event` with each long system message of its kept prompt met in another run before
   * replaced by a reference, the texts it refers to added to `used` (hash → JSON form); the
   * same object when nothing was replaced. A system message that happens to look like a
   * reference is always stored apart, so `expand` gives back exactly what came in.
   */
  intern(event: JsonObject, used: Map<string, string>): JsonObject {
    const runId = typeof event['runId'] === 'string' ? event['runId'] : '';
    return withSystemContents(event, (content) => {
      const lookalike = content.startsWith(REF_PREFIX);
      if (content.length < MIN_INTERNED_CHARS && !lookalike) return undefined;
      const { json, hash } = this.#formOf(content);
      if (!this.#shared.has(hash)) {
        const first = this.#firstRun.get(hash);
        if (!lookalike && (first === undefined || first === runId)) {
          if (first === undefined) remember(this.#firstRun, hash, runId);
          return undefined;
        }
        this.#firstRun.delete(hash);
        remember(this.#shared, hash, json);
      }
      used.set(hash, json);
      return REF_PREFIX + hash;
    });
  }

  /** `event` with its references replaced by their texts (the same object when it has none). */
  expand(event: JsonObject, where: string): JsonObject {
    return withSystemContents(event, (content) => {
      const hash = REF.exec(content)?.[1];
      if (hash === undefined) return undefined;
      const json = this.#shared.get(hash);
      if (json === undefined)
        throw new StoredEventError('MALFORMED', `${where} refers to stored text ${hash}, not found`);
      return JSON.parse(json) as string;
    });
  }

  /** The hashes the bodies refer to whose texts this process does not hold. */
  missingIn(bodies: readonly string[]): string[] {
    const missing = new Set<string>();
    for (const body of bodies) {
      if (!body.includes('reins-text:')) continue;
      for (const match of body.matchAll(REF_IN_BODY)) {
        const hash = match[1] as string;
        if (!this.#shared.has(hash)) missing.add(hash);
      }
    }
    return [...missing];
  }

  /** The texts the bodies refer to that this process holds: hash → JSON form. */
  heldIn(bodies: readonly string[]): [string, string][] {
    const held = new Map<string, string>();
    for (const body of bodies) {
      if (!body.includes('reins-text:')) continue;
      for (const match of body.matchAll(REF_IN_BODY)) {
        const hash = match[1] as string;
        const json = this.#shared.get(hash);
        if (json !== undefined) held.set(hash, json);
      }
    }
    return [...held];
  }

  /** Holds a text read back from where the texts are kept (its JSON form), after checking its hash. */
  hold(hash: string, json: string): void {
    if (sha256(json) !== hash)
      throw new StoredEventError('MALFORMED', `stored text ${hash} does not match its hash`);
    remember(this.#shared, hash, json);
  }

  #formOf(text: string): { readonly json: string; readonly hash: string } {
    let form = this.#forms.get(text);
    if (form === undefined) {
      const json = JSON.stringify(text);
      form = { json, hash: sha256(json) };
      remember(this.#forms, text, form);
    }
    return form;
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

/**
 * `event` with the content of each system message of its kept prompt (`prompt.parts`) replaced
 * by what `replace` gives (`undefined`: kept), copied on write: the same object when none is.
 */
function withSystemContents(event: JsonObject, replace: (content: string) => string | undefined): JsonObject {
  const prompt = event['prompt'];
  if (!isObject(prompt) || !Array.isArray(prompt['parts'])) return event;
  const parts = prompt['parts'];
  let copy: Json[] | undefined;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as Json;
    const content = isObject(part) && part['role'] === 'system' ? part['content'] : undefined;
    const replaced = typeof content === 'string' ? replace(content) : undefined;
    if (replaced === undefined) continue;
    copy ??= parts.slice();
    copy[i] = withContent(part as JsonObject, replaced);
  }
  return copy === undefined ? event : withPrompt(event, { ...prompt, parts: copy });
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
