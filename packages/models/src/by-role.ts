import type { Model, ModelRequest, ModelResult } from 'reins';
import { joinRoute } from './route.js';

export interface RoleModels {
  /** Steps that may call tools (the reasoning). */
  readonly reasoning: Model;
  /** The last step, which offers no tools and must answer (often a cheaper or stronger model). */
  readonly finalAnswer: Model;
}

/**
 * Routes each step to the model for its role: `finalAnswer` on the run's last (tool-less)
 * step, `reasoning` otherwise. Wrap each role in `withFallback` / `withRetries` for a primary
 * and a fallback per role; the record names the model that answered each step.
 */
export function byRole(models: RoleModels): Model {
  return {
    name: `roles(${models.reasoning.name}; final ${models.finalAnswer.name})`,
    ...(models.reasoning.demo === true && models.finalAnswer.demo === true ? { demo: true } : {}),
    async call(request: ModelRequest): Promise<ModelResult> {
      const model = request.finalStep ? models.finalAnswer : models.reasoning;
      const result = await model.call(request);
      if (!result.ok) return result;
      const role = request.finalStep ? 'role responder' : 'role planner';
      return { ...result, model: result.model ?? model.name, route: joinRoute(role, result.route) };
    },
  };
}
