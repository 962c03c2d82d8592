import { demoModel } from '../models/demo-model.js';
import type { Model } from '../model.js';
import { loadScriptModel } from '../node/load-script.js';

/** What the CLI needs from `@reins/models` (loaded only when a real provider is asked for). */
interface ModelsPackage {
  modelStack(env: Readonly<Record<string, string | undefined>>): Promise<{
    model: Model;
    reason: string;
    printable: Record<string, string>;
    close(): Promise<void>;
  }>;
}

export interface Chosen {
  readonly model: Model;
  /** A line for stderr: which model and why, secrets masked. */
  readonly notice?: string;
  /** Frees what the model holds (the stack's Redis connection), after the run. */
  readonly close?: () => Promise<void>;
}

/**
 * `demo` and `script:FILE` are built in. A provider spec (`openai:…`, `anthropic:…`) loads
 * the optional `@reins/models` package at run time: the core never imports an adapter.
 * `--model` wins over `REINS_MODEL`; keys come from the environment only. A provider gets the
 * composed model stack (`modelStack`), the same as the kitchen's.
 */
export async function chooseCliModel(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Chosen> {
  const spec = flag ?? env.REINS_MODEL?.trim() ?? 'demo';
  if (spec === 'demo' || spec === '') return { model: demoModel() };
  if (spec.startsWith('script:') && spec.length > 'script:'.length) {
    return { model: await loadScriptModel(spec.slice('script:'.length)) };
  }
  if (!/^(openai|anthropic):./.test(spec)) {
    throw new Error(
      `model must be demo, script:FILE, openai:<model> or anthropic:<model>, got ${JSON.stringify(spec)}`,
    );
  }
  let models: ModelsPackage;
  try {
    const specifier = '@reins/models'; // not a literal: the core has no build-time link to adapters
    models = (await import(specifier)) as ModelsPackage;
  } catch (thrown) {
    const why = thrown instanceof Error ? thrown.message : String(thrown);
    throw new Error(`${spec} needs the @reins/models package, which did not load: ${why}`, { cause: thrown });
  }
  // The composed stack (retries, fallbacks, roles, rollout, reasoning cache) from the environment.
  const chosen = await models.modelStack({ ...env, REINS_MODEL: spec });
  const settings = Object.entries(chosen.printable)
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
  return {
    model: chosen.model,
    notice: `model ${chosen.model.name}: ${chosen.reason} (${settings})`,
    close: () => chosen.close(),
  };
}
