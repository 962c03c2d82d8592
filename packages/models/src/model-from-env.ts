import { demoModel, type Model } from 'reins';
import { loadScriptModel } from 'reins/node';
import { anthropic } from './anthropic.js';
import {
  ModelConfigError,
  mask,
  maskUrl,
  numberSetting,
  setting,
  urlSetting,
  wholeSetting,
  type Env,
} from './env-settings.js';
import { openAiCompatible } from './openai-compatible.js';
import { DEFAULT_MAX_MODEL_REPLY_BYTES } from './reply-cap.js';

export { ModelConfigError } from './env-settings.js';

/** Sampling temperature when `REINS_TEMPERATURE` is unset (seed 003: near-deterministic agents). */
export const DEFAULT_TEMPERATURE = 0.1;

/** The model settings, read from the environment in one place. */
export interface ModelConfig {
  /** `openai:<model>`, `anthropic:<model>`, `demo` or `script:<file>` (REINS_MODEL). */
  readonly spec: string;
  readonly openaiApiKey?: string;
  readonly openaiBaseURL?: string;
  readonly anthropicApiKey?: string;
  /** ANTHROPIC_BASE_URL: an Anthropic-compatible gateway (default the public API). */
  readonly anthropicBaseURL?: string;
  /** Cap on one reply's bytes (REINS_MAX_MODEL_REPLY_BYTES); default 262 144. */
  readonly maxModelReplyBytes?: number;
  /** REINS_TEMPERATURE, 0..2; default 0.1. */
  readonly temperature?: number;
  /** REINS_OPENAI_TIMEOUT_MS / REINS_ANTHROPIC_TIMEOUT_MS; unset: the run's model timeout alone. */
  readonly openaiTimeoutMs?: number;
  readonly anthropicTimeoutMs?: number;
}

export interface ChosenModel {
  readonly model: Model;
  /** Why this model (e.g. why the demo model stands in); printed at start-up. */
  readonly reason: string;
  /** The configuration with secrets masked, safe to print or log. */
  readonly printable: Readonly<Record<string, string>>;
}

const DAY_MS = 86_400_000;

export function readModelConfig(env: Env): ModelConfig {
  const entries: [keyof ModelConfig, string | number | undefined][] = [
    ['spec', setting(env, 'REINS_MODEL') ?? 'demo'],
    ['openaiApiKey', setting(env, 'OPENAI_API_KEY')],
    ['openaiBaseURL', urlSetting(env, 'OPENAI_BASE_URL')],
    ['anthropicApiKey', setting(env, 'ANTHROPIC_API_KEY')],
    ['anthropicBaseURL', urlSetting(env, 'ANTHROPIC_BASE_URL')],
    [
      'maxModelReplyBytes',
      wholeSetting(env, 'REINS_MAX_MODEL_REPLY_BYTES', 1, Number.MAX_SAFE_INTEGER, 'a number of bytes'),
    ],
    ['temperature', numberSetting(env, 'REINS_TEMPERATURE', 0, 2)],
    ['openaiTimeoutMs', wholeSetting(env, 'REINS_OPENAI_TIMEOUT_MS', 1, DAY_MS, 'a timeout in ms')],
    ['anthropicTimeoutMs', wholeSetting(env, 'REINS_ANTHROPIC_TIMEOUT_MS', 1, DAY_MS, 'a timeout in ms')],
  ];
  return Object.fromEntries(entries.filter(([, value]) => value !== undefined)) as unknown as ModelConfig;
}

/** The settings as printed at start-up, secrets masked. */
export function printableConfig(config: ModelConfig): Record<string, string> {
  return {
    REINS_MODEL: config.spec,
    OPENAI_API_KEY: mask(config.openaiApiKey),
    OPENAI_BASE_URL: maskUrl(config.openaiBaseURL),
    ANTHROPIC_API_KEY: mask(config.anthropicApiKey),
    ANTHROPIC_BASE_URL: maskUrl(config.anthropicBaseURL),
    REINS_MAX_MODEL_REPLY_BYTES:
      config.maxModelReplyBytes === undefined
        ? `${DEFAULT_MAX_MODEL_REPLY_BYTES} (default)`
        : String(config.maxModelReplyBytes),
    REINS_TEMPERATURE:
      config.temperature === undefined ? `${DEFAULT_TEMPERATURE} (default)` : String(config.temperature),
  };
}

/**
 * The adapter for a provider spec (`openai:<model>`, `anthropic:<model>`), or why it cannot
 * be built (its key is missing). Temperature, base URLs, timeouts and the reply cap applied.
 */
export function providerModel(spec: string, config: ModelConfig): Model | { readonly missing: string } {
  const [provider, ...rest] = spec.split(':');
  const name = rest.join(':');
  const common = {
    model: name,
    temperature: config.temperature ?? DEFAULT_TEMPERATURE,
    ...(config.maxModelReplyBytes === undefined ? {} : { maxModelReplyBytes: config.maxModelReplyBytes }),
  };
  if (provider === 'openai') {
    if (config.openaiApiKey === undefined && config.openaiBaseURL === undefined) {
      return { missing: 'OPENAI_API_KEY (or OPENAI_BASE_URL for a local server)' };
    }
    return openAiCompatible({
      ...common,
      // Unset: no timeout of its own; the run's model timeout bounds the call.
      timeoutMs: config.openaiTimeoutMs ?? Number.POSITIVE_INFINITY,
      ...(config.openaiApiKey === undefined ? {} : { apiKey: config.openaiApiKey }),
      ...(config.openaiBaseURL === undefined ? {} : { baseURL: config.openaiBaseURL }),
    });
  }
  if (config.anthropicApiKey === undefined) return { missing: 'ANTHROPIC_API_KEY' };
  return anthropic({
    ...common,
    apiKey: config.anthropicApiKey,
    timeoutMs: config.anthropicTimeoutMs ?? Number.POSITIVE_INFINITY,
    ...(config.anthropicBaseURL === undefined ? {} : { baseURL: config.anthropicBaseURL }),
  });
}

/**
 * Builds the configured model, bare (no retries, fallbacks or cache: `modelStack` composes
 * those). A provider without its key (and, for OpenAI-compatible, no local base URL) falls
 * back to the `demo` model and says why — every demo answer says it is one. An unknown spec
 * is refused with a `ModelConfigError`.
 */
export async function chooseModel(config: ModelConfig): Promise<ChosenModel> {
  const printable = printableConfig(config);
  const [provider, ...rest] = config.spec.split(':');
  const name = rest.join(':');
  const demo = (reason: string): ChosenModel => ({ model: demoModel(), reason, printable });
  switch (provider) {
    case 'demo':
      if (name !== '') break;
      return demo('REINS_MODEL is demo (or unset)');
    case 'script':
      if (name === '') break;
      return { model: await loadScriptModel(name), reason: `replaying ${name}`, printable };
    case 'openai':
    case 'anthropic': {
      if (name === '') break;
      const model = providerModel(config.spec, config);
      if ('missing' in model) return demo(`${config.spec} needs ${model.missing}`);
      const reason = provider === 'openai' ? `OpenAI-compatible ${name}` : `Anthropic ${name}`;
      return { model, reason, printable };
    }
  }
  throw new ModelConfigError(
    `REINS_MODEL=${JSON.stringify(config.spec)} is not one of openai:<model>, anthropic:<model>, demo, script:<file>`,
  );
}
