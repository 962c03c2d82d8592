import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Model, ModelRequest, ModelResult } from 'reins';

/** Where cached replies live. Failures are the store's to report; the cache treats them as misses. */
export interface ReplyStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
}

export interface ReasoningCacheOptions {
  readonly store: ReplyStore;
  /** Part of the key: bump it when the prompt changes (old entries are simply never hit). */
  readonly promptVersion: string;
  /** Default 300 000 (seed 003 §4.3). */
  readonly ttlMs?: number;
  /** Which steps may be answered from (and stored in) the cache; default every step. */
  readonly cacheable?: (request: ModelRequest) => boolean;
  /** Told each step's outcome (e.g. to count the hit rate). */
  readonly onLookup?: (outcome: 'hit' | 'miss' | 'skip') => void;
}

/**
 * The stack's rule: a step is cached only when every tool it offers is read-only — the last,
 * tool-less answer step included; a step offering no tools that is not the last (a
 * plan-and-execute planner, whose plan may change things) is not.
 */
export function readOnlyStep(request: ModelRequest): boolean {
  if (request.finalStep) return true;
  return request.tools.length > 0 && request.tools.every((tool) => tool.readOnly === true);
}

/**
 * Reuses a model's reply when the same model, prompt version, query and last observation
 * come again (seed 003 §4.3). Off unless you wrap a model with it. Only successful replies
 * are cached; a store that fails is a miss (the model is asked), never an error.
 */
export function withReasoningCache(model: Model, options: ReasoningCacheOptions): Model {
  const ttlMs = options.ttlMs ?? 300_000;
  return {
    name: model.name,
    ...(model.demo === undefined ? {} : { demo: model.demo }),
    async call(request: ModelRequest): Promise<ModelResult> {
      if (options.cacheable !== undefined && !options.cacheable(request)) {
        options.onLookup?.('skip');
        return model.call(request);
      }
      const key = reasoningKey(model.name, options.promptVersion, request);
      const hit = await options.store.get(key).catch(() => undefined);
      if (hit !== undefined) {
        try {
          const cached = JSON.parse(hit) as ModelResult & { ok: true };
          options.onLookup?.('hit');
          // No tokens were spent on a hit: report none, so cost counts stay true.
          return {
            ...cached,
            usage: { inputTokens: 0, outputTokens: 0 },
            model: `${model.name} (cached)`,
            route: 'cache hit',
          };
        } catch {
          // a damaged entry is a miss
        }
      }
      options.onLookup?.('miss');
      const result = await model.call(request);
      if (result.ok) await options.store.set(key, JSON.stringify(result), ttlMs).catch(() => undefined);
      return result;
    },
  };
}

/**
 * hash(model, prompt version, tools offered, system prompt, query, last observation) — the key
 * format `reins:reason:v3:<sha256>`. The observation's act id (a fresh UUID each run) is left out,
 * or no later step could ever hit.
 */
export function reasoningKey(model: string, promptVersion: string, request: ModelRequest): string {
  const query = request.messages.find((m) => m.role === 'user')?.content ?? '';
  const observation = lastObservation(request, query).replace(/, act [0-9a-f-]{36}\)/g, ')');
  const tools = request.tools.map((t) => [t.name, t.description, t.inputSchema]);
  // The system prompt may carry the user's context (instructions, earlier turns): one user's
  // reply must never answer another's, so it is part of the key.
  const system = request.messages.filter((m) => m.role === 'system').map((m) => m.content);
  const hash = createHash('sha256')
    .update(JSON.stringify([model, promptVersion, request.finalStep, tools, system, query, observation]))
    .digest('hex');
  return `reins:reason:v3:${hash}`;
}

/** The last step's observation(s): the last user message, or the trailing native tool results. */
function lastObservation(request: ModelRequest, query: string): string {
  const { messages } = request;
  let from = messages.length;
  while (from > 0 && messages[from - 1]?.role === 'tool') from--;
  if (from < messages.length) {
    return messages
      .slice(from)
      .map((m) => m.content)
      .join('\n');
  }
  const last = messages.at(-1);
  return last !== undefined && last.role === 'user' && last.content !== query ? last.content : '';
}

/** An in-process store with expiry (the embedded default). */
export function memoryReplyStore(now: () => number = Date.now): ReplyStore {
  const entries = new Map<string, { value: string; expires: number }>();
  return {
    get: async (key) => {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      if (entry.expires <= now()) {
        entries.delete(key);
        return undefined;
      }
      return entry.value;
    },
    set: async (key, value, ttlMs) => {
      entries.set(key, { value, expires: now() + ttlMs });
    },
  };
}

/**
 * A Redis store (shared mode). Give it a client made with `enableOfflineQueue: false` and a
 * short `commandTimeout`, so a Redis that is away costs a quick miss, not a queue.
 */
export function redisReplyStore(redis: Redis): ReplyStore {
  return {
    get: async (key) => (await redis.get(key)) ?? undefined,
    set: async (key, value, ttlMs) => {
      await redis.set(key, value, 'PX', ttlMs);
    },
  };
}
