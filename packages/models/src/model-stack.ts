import type { ErrorCode, Model, ModelRequest, ModelResult } from 'reins';
import { byRole } from './by-role.js';
import { ModelConfigError, type Env } from './env-settings.js';
import {
  chooseModel,
  providerModel,
  readModelConfig,
  type ChosenModel,
  type ModelConfig,
} from './model-from-env.js';
import {
  memoryReplyStore,
  readOnlyStep,
  redisReplyStore,
  withReasoningCache,
  type ReplyStore,
} from './reasoning-cache.js';
import { gradualRollout, type Rollout } from './rollout.js';
import { readStackConfig, type StackConfig } from './stack-config.js';
import { withFallback } from './with-fallback.js';
import { withRetries, type RetryOptions } from './with-retries.js';

/** Hits, misses and skipped steps (tools not all read-only) of the stack's reasoning cache. */
export interface CacheStats {
  readonly hits: number;
  readonly misses: number;
  readonly skipped: number;
  /** hits / (hits + misses); 0 before any lookup. */
  readonly hitRate: number;
}

export interface ModelStack extends ChosenModel {
  /** The composition (`Model.stack`, the `start` event's `modelStack`); absent for demo / script. */
  readonly description?: string;
  readonly rollout?: Rollout;
  readonly cache?: { stats(): CacheStats };
  /**
   * Spread into `createReinsServer`'s options: every run is shown to the rollout, and
   * `/metrics` compares both sides and reports the cache's hit rate.
   */
  readonly serverOptions: {
    readonly rollouts?: Readonly<Record<string, Rollout>>;
    readonly reasoningCaches?: Readonly<Record<string, { stats(): CacheStats }>>;
  };
  /** Frees what the stack holds (its Redis connection). */
  close(): Promise<void>;
}

export interface ModelStackOptions {
  /** The cache's store (default: Redis when REDIS_URL is set, else in memory). */
  readonly store?: ReplyStore;
  /** Backoff of the retries (tests make it short). */
  readonly retry?: Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs' | 'random'>;
  /** Which users get the candidate (tests; default a hash of the user key). */
  readonly assign?: (key: string) => number;
  /** Told once when the rollout switches its candidate off. */
  readonly onSwitchOff?: (message: string) => void;
}

const CACHE_TTL_MS = 300_000;
const FALL_BACK_ON: readonly ErrorCode[] = ['TIMEOUT', 'SERVICE_UNAVAILABLE', 'RATE_LIMITED'];

/**
 * The model a deployment runs, from the environment: for a provider, each model retried with
 * backoff, then the fallback chain; by role (planner / responder); a gradual rollout to a
 * candidate that switches itself off; and the reasoning cache for read-only steps. `demo` and
 * `script:` models are returned bare. Malformed settings throw `ModelConfigError`, named.
 */
export async function modelStack(env: Env, options: ModelStackOptions = {}): Promise<ModelStack> {
  const config = readModelConfig(env);
  const stack = readStackConfig(env);
  const chosen = await chooseModel(config);
  if (chosen.model.demo === true || config.spec.startsWith('script:')) {
    return { ...chosen, serverOptions: {}, close: async () => undefined };
  }
  const retry = { ...options.retry, maxRetries: stack.retries };
  const adapter = (spec: string, settingName: string): Model => {
    const model = providerModel(spec, config);
    if ('missing' in model) throw new ModelConfigError(`${settingName}=${spec} needs ${model.missing}`);
    return withRetries(model, retry);
  };
  // primary | (fallback 1 | (fallback 2 …)): each retried, then the next takes over.
  const chain = (spec: string, settingName: string): Model =>
    [
      adapter(spec, settingName),
      ...stack.fallbacks.map((f) => adapter(f, 'REINS_MODEL_FALLBACK')),
    ].reduceRight((rest, model) => withFallback(model, rest, { on: FALL_BACK_ON }));
  const roles = stack.planner !== undefined || stack.responder !== undefined;
  const stable = roles
    ? byRole({
        reasoning: chain(stack.planner ?? config.spec, 'REINS_MODEL_PLANNER'),
        finalAnswer: chain(stack.responder ?? config.spec, 'REINS_MODEL_RESPONDER'),
      })
    : chain(config.spec, 'REINS_MODEL');

  const counts = { hits: 0, misses: 0, skipped: 0 };
  const { store, close } = await cacheStore(stack, options.store);
  const cached = (model: Model): Model =>
    store === undefined
      ? model
      : withReasoningCache(model, {
          store,
          promptVersion: 'stack',
          ttlMs: CACHE_TTL_MS,
          cacheable: readOnlyStep,
          onLookup: (outcome) => {
            if (outcome === 'hit') counts.hits++;
            else if (outcome === 'miss') counts.misses++;
            else counts.skipped++;
          },
        });

  let rollout: Rollout | undefined;
  let composed = cached(stable);
  if (stack.candidate !== undefined) {
    rollout = gradualRollout({
      stable: composed,
      candidate: cached(adapter(stack.candidate.spec, 'REINS_MODEL_CANDIDATE')),
      share: stack.candidate.share,
      window: stack.candidate.window,
      ...(options.assign === undefined ? {} : { assign: options.assign }),
      onSwitchOff: (s) =>
        options.onSwitchOff?.(
          `rollout: ${stack.candidate?.spec} switched off (error rate ${pct(s.arms.candidate.errorRate)} vs stable ${pct(s.arms.stable.errorRate)} over the last ${stack.candidate?.window} steps)`,
        ),
    });
    composed = rollout.model;
  }
  const description = describe(config, stack, store !== undefined);
  const inner = composed;
  const model: Model = {
    name: chosen.model.name,
    stack: description,
    call: (request: ModelRequest): Promise<ModelResult> => inner.call(request),
  };
  const cache = store === undefined ? undefined : { stats: () => cacheStats(counts) };
  return {
    model,
    reason: `${chosen.reason}, composed: ${description}`,
    printable: chosen.printable,
    description,
    ...(rollout === undefined ? {} : { rollout }),
    ...(cache === undefined ? {} : { cache }),
    serverOptions: {
      ...(rollout === undefined ? {} : { rollouts: { model: rollout } }),
      ...(cache === undefined ? {} : { reasoningCaches: { model: cache } }),
    },
    close,
  };
}

async function cacheStore(
  stack: StackConfig,
  given: ReplyStore | undefined,
): Promise<{ store?: ReplyStore; close: () => Promise<void> }> {
  const none = async (): Promise<void> => undefined;
  if (!stack.cache) return { close: none };
  if (given !== undefined) return { store: given, close: none };
  if (stack.redisUrl === undefined) return { store: memoryReplyStore(), close: none };
  const { Redis } = await import('ioredis'); // loaded only when the cache is shared
  // No offline queue and a short timeout: a Redis that is away costs a quick miss.
  const redis = new Redis(stack.redisUrl, {
    enableOfflineQueue: false,
    commandTimeout: 250,
    maxRetriesPerRequest: 0,
    lazyConnect: false,
  });
  redis.on('error', () => undefined); // misses meanwhile; ioredis reconnects
  return {
    store: redisReplyStore(redis),
    close: async () => {
      redis.disconnect();
    },
  };
}

function cacheStats(counts: { hits: number; misses: number; skipped: number }): CacheStats {
  const looked = counts.hits + counts.misses;
  return { ...counts, hitRate: looked === 0 ? 0 : counts.hits / looked };
}

/** e.g. `retries(2) → openai:a, then anthropic:b | roles(planner …; responder …) | rollout …`. */
function describe(config: ModelConfig, stack: StackConfig, cache: boolean): string {
  const chain = (spec: string): string => [spec, ...stack.fallbacks].join(' → ');
  const parts = [`retries ${stack.retries} per model`];
  if (stack.planner !== undefined || stack.responder !== undefined) {
    parts.push(
      `planner ${chain(stack.planner ?? config.spec)}`,
      `responder ${chain(stack.responder ?? config.spec)}`,
    );
  } else parts.push(`chain ${chain(config.spec)}`);
  if (stack.candidate !== undefined) {
    parts.push(
      `rollout ${stack.candidate.spec} to ${pct(stack.candidate.share)} of users (off when its error rate exceeds stable's by 5 points over ${stack.candidate.window} steps)`,
    );
  }
  parts.push(
    cache
      ? `reasoning cache ${stack.redisUrl === undefined ? 'in memory' : 'in Redis'}, 300 s, read-only steps`
      : 'no reasoning cache',
  );
  return parts.join('; ');
}

function pct(share: number): string {
  return `${Math.round(share * 1000) / 10}%`;
}
