import { demoModel, type Model } from 'reins';
import { loadScriptModel } from 'reins/node';
import { anthropic } from './anthropic.js';
import { openAiCompatible } from './openai-compatible.js';
import { DEFAULT_MAX_MODEL_REPLY_BYTES } from './reply-cap.js';

/** The model settings, read from the environment in one place. */
export interface ModelConfig {
  /** `openai:<model>`, `anthropic:<model>`, `demo` or `script:<file>` (REINS_MODEL). */
  readonly spec: string;
  readonly openaiApiKey?: string;
  readonly openaiBaseURL?: string;
  readonly anthropicApiKey?: string;
  /** Cap on one reply's bytes (REINS_MAX_MODEL_REPLY_BYTES); default 262 144. */
  readonly maxModelReplyBytes?: number;
}

export interface ChosenModel {
  readonly model: Model;
  /** Why this model (e.g. why the demo model stands in); printed at start-up. */
  readonly reason: string;
  /** The configuration with secrets masked, safe to print or log. */
  readonly printable: Readonly<Record<string, string>>;
}

/** A configuration that cannot be used: refused at start-up, with the setting named. */
export class ModelConfigError extends Error {
  readonly code = 'INVALID_PARAMETER';
}

export function readModelConfig(env: Readonly<Record<string, string | undefined>>): ModelConfig {
  const value = (name: string): string | undefined => {
    const v = env[name]?.trim();
    return v === undefined || v === '' ? undefined : v;
  };
  const openaiApiKey = value('OPENAI_API_KEY');
  const openaiBaseURL = value('OPENAI_BASE_URL');
  const anthropicApiKey = value('ANTHROPIC_API_KEY');
  const maxModelReplyBytes = bytesSetting(
    'REINS_MAX_MODEL_REPLY_BYTES',
    value('REINS_MAX_MODEL_REPLY_BYTES'),
  );
  return {
    spec: value('REINS_MODEL') ?? 'demo',
    ...(openaiApiKey === undefined ? {} : { openaiApiKey }),
    ...(openaiBaseURL === undefined ? {} : { openaiBaseURL }),
    ...(anthropicApiKey === undefined ? {} : { anthropicApiKey }),
    ...(maxModelReplyBytes === undefined ? {} : { maxModelReplyBytes }),
  };
}

/**
 * Builds the configured model. A provider without its key (and, for OpenAI-compatible, no
 * local base URL) falls back to the `demo` model and says why — every demo answer says it
 * is one. An unknown spec is refused with a `ModelConfigError`.
 */
export async function chooseModel(config: ModelConfig): Promise<ChosenModel> {
  const printable = {
    REINS_MODEL: config.spec,
    OPENAI_API_KEY: mask(config.openaiApiKey),
    OPENAI_BASE_URL: config.openaiBaseURL ?? '(default)',
    ANTHROPIC_API_KEY: mask(config.anthropicApiKey),
    REINS_MAX_MODEL_REPLY_BYTES:
      config.maxModelReplyBytes === undefined
        ? `${DEFAULT_MAX_MODEL_REPLY_BYTES} (default)`
        : String(config.maxModelReplyBytes),
  };
  const cap =
    config.maxModelReplyBytes === undefined ? {} : { maxModelReplyBytes: config.maxModelReplyBytes };
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
      if (name === '') break;
      if (config.openaiApiKey === undefined && config.openaiBaseURL === undefined) {
        return demo(`${config.spec} needs OPENAI_API_KEY (or OPENAI_BASE_URL for a local server)`);
      }
      return {
        model: openAiCompatible({
          model: name,
          ...(config.openaiApiKey === undefined ? {} : { apiKey: config.openaiApiKey }),
          ...(config.openaiBaseURL === undefined ? {} : { baseURL: config.openaiBaseURL }),
          ...cap,
        }),
        reason: `OpenAI-compatible ${name}`,
        printable,
      };
    case 'anthropic':
      if (name === '') break;
      if (config.anthropicApiKey === undefined) return demo(`${config.spec} needs ANTHROPIC_API_KEY`);
      return {
        model: anthropic({ model: name, apiKey: config.anthropicApiKey, ...cap }),
        reason: `Anthropic ${name}`,
        printable,
      };
  }
  throw new ModelConfigError(
    `REINS_MODEL=${JSON.stringify(config.spec)} is not one of openai:<model>, anthropic:<model>, demo, script:<file>`,
  );
}

/** A byte count from the environment; anything but a positive whole number is refused, named. */
function bytesSetting(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const bytes = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(bytes) || bytes <= 0) {
    throw new ModelConfigError(`${name}=${JSON.stringify(raw)} is not a positive whole number of bytes`);
  }
  return bytes;
}

function mask(secret: string | undefined): string {
  if (secret === undefined) return '(not set)';
  return secret.length <= 8 ? '****' : `${secret.slice(0, 3)}…${secret.slice(-4)}`;
}
