import {
  ModelConfigError,
  numberSetting,
  providerSpec,
  setting,
  wholeSetting,
  type Env,
} from './env-settings.js';

/** How the model stack is composed, read from the environment (see the README's table). */
export interface StackConfig {
  /** REINS_MODEL_FALLBACK: tried in order after the primary (each retried first). */
  readonly fallbacks: readonly string[];
  /** REINS_MODEL_PLANNER / REINS_MODEL_RESPONDER; absent: REINS_MODEL. */
  readonly planner?: string;
  readonly responder?: string;
  /** REINS_MODEL_CANDIDATE and the share of users it gets (REINS_ROLLOUT_PERCENT / 100). */
  readonly candidate?: { readonly spec: string; readonly share: number; readonly window: number };
  /** REINS_MODEL_RETRIES: retries after the first try, per model (default 2). */
  readonly retries: number;
  /** REINS_REASONING_CACHE (default on); REDIS_URL shares it. */
  readonly cache: boolean;
  readonly redisUrl?: string;
}

export const DEFAULT_RETRIES = 2;
export const DEFAULT_ROLLOUT_PERCENT = 5;
export const DEFAULT_ROLLOUT_WINDOW = 50;

/** Reads and checks the stack's settings: a malformed one is a `ModelConfigError` naming it. */
export function readStackConfig(env: Env): StackConfig {
  const fallbackList = setting(env, 'REINS_MODEL_FALLBACK');
  const fallbacks =
    fallbackList === undefined
      ? []
      : fallbackList.split(',').map((entry) => providerSpec('REINS_MODEL_FALLBACK', entry.trim()));
  const role = (name: string): string | undefined => {
    const raw = setting(env, name);
    return raw === undefined ? undefined : providerSpec(name, raw);
  };
  const planner = role('REINS_MODEL_PLANNER');
  const responder = role('REINS_MODEL_RESPONDER');
  const candidateSpec = role('REINS_MODEL_CANDIDATE');
  const percent = numberSetting(env, 'REINS_ROLLOUT_PERCENT', 0, 100);
  const window = wholeSetting(env, 'REINS_ROLLOUT_WINDOW', 1, 100_000, 'a number of steps');
  if (candidateSpec === undefined && (percent !== undefined || window !== undefined)) {
    const name = percent === undefined ? 'REINS_ROLLOUT_WINDOW' : 'REINS_ROLLOUT_PERCENT';
    throw new ModelConfigError(
      `${name} is set but REINS_MODEL_CANDIDATE is not: there is nothing to roll out`,
    );
  }
  const cacheSetting = setting(env, 'REINS_REASONING_CACHE')?.toLowerCase();
  if (cacheSetting !== undefined && cacheSetting !== 'on' && cacheSetting !== 'off') {
    throw new ModelConfigError(
      `REINS_REASONING_CACHE=${JSON.stringify(env.REINS_REASONING_CACHE)} is not on or off`,
    );
  }
  const redisUrl = setting(env, 'REDIS_URL');
  return {
    fallbacks,
    ...(planner === undefined ? {} : { planner }),
    ...(responder === undefined ? {} : { responder }),
    ...(candidateSpec === undefined
      ? {}
      : {
          candidate: {
            spec: candidateSpec,
            share: (percent ?? DEFAULT_ROLLOUT_PERCENT) / 100,
            window: window ?? DEFAULT_ROLLOUT_WINDOW,
          },
        }),
    retries: wholeSetting(env, 'REINS_MODEL_RETRIES', 0, 10, 'a number of retries') ?? DEFAULT_RETRIES,
    cache: cacheSetting !== 'off',
    ...(redisUrl === undefined ? {} : { redisUrl }),
  };
}
