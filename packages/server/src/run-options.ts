import { DEFAULT_LIMITS, type Model, type RunLimits } from 'reins';
import { ApiError } from './http-error.js';
import type { AgentDefinition } from './server-options.js';

/** What a caller may choose per run (the playground's slider and picker), validated. */
export interface RunOptions {
  /** Fewer model steps than the agent allows; more is clamped to the agent's limit. */
  readonly maxSteps?: number;
  /** One of the agent's configured models, by name. */
  readonly model?: string;
}

/** Reads `maxSteps` / `model` from a run request body: wrong types or values are a 400, never ignored. */
export function readRunOptions(body: Record<string, unknown>): RunOptions {
  const { maxSteps, model } = body;
  const out: { maxSteps?: number; model?: string } = {};
  if (maxSteps !== undefined) {
    if (typeof maxSteps !== 'number' || !Number.isInteger(maxSteps) || maxSteps < 1) {
      throw new ApiError(400, 'INVALID_PARAMETER', 'maxSteps: a whole number ≥ 1 is required');
    }
    out.maxSteps = maxSteps;
  }
  if (model !== undefined) {
    if (typeof model !== 'string' || model === '' || model.length > 200) {
      throw new ApiError(400, 'INVALID_PARAMETER', 'model: a model name is required');
    }
    out.model = model;
  }
  return out;
}

/** The models a caller may pick for an agent: its own first, then its alternatives, by name. */
export function agentModels(definition: AgentDefinition): Map<string, Model> {
  const models = new Map<string, Model>([[definition.model.name, definition.model]]);
  for (const model of Object.values(definition.models ?? {}))
    if (!models.has(model.name)) models.set(model.name, model);
  return models;
}

export function agentMaxSteps(definition: AgentDefinition): number {
  return definition.limits?.maxSteps ?? DEFAULT_LIMITS.maxSteps;
}

/**
 * The model and limits of one run: the agent's, narrowed by the caller's options. The agent's
 * step limit is a ceiling the caller cannot raise (a larger `maxSteps` is clamped to it);
 * an unknown model name is refused with the names that exist.
 */
export function applyRunOptions(
  definition: AgentDefinition,
  options: RunOptions,
): { model: Model; limits: Partial<RunLimits> | undefined } {
  let model = definition.model;
  if (options.model !== undefined) {
    const models = agentModels(definition);
    const picked = models.get(options.model);
    if (picked === undefined) {
      throw new ApiError(
        400,
        'INVALID_PARAMETER',
        `model: ${JSON.stringify(options.model)} is not configured for this agent (one of: ${[...models.keys()].join(', ')})`,
      );
    }
    model = picked;
  }
  if (options.maxSteps === undefined) return { model, limits: definition.limits };
  const maxSteps = Math.min(options.maxSteps, agentMaxSteps(definition));
  return { model, limits: { ...definition.limits, maxSteps } };
}
