import { Hono } from 'hono';
import { agentMaxSteps, agentModels } from '../run-options.js';
import type { AppEnv, ServerState } from '../server-state.js';

/** What a client (the playground) may run: each agent's kind, models, step limit and tools. */
export interface AgentListing {
  readonly name: string;
  readonly kind: string;
  readonly model: string;
  readonly models: readonly string[];
  readonly maxSteps: number;
  readonly tools: readonly string[];
}

/** `GET /v1/agents`: the agents as the caller would get them (factories are built for the caller). */
export function agentRoutes(s: ServerState): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/', async (c) => {
    const principal = c.get('principal');
    const agents: AgentListing[] = [];
    for (const [name, definition] of s.agents) {
      const resolved = typeof definition === 'function' ? await definition(principal) : definition;
      agents.push({
        name,
        // Plan agents say so (`kind: 'plan'`); everything else runs the ReAct loop.
        kind: resolved.kind === 'plan' ? 'plan' : 'react',
        model: resolved.model.name,
        models: [...agentModels(resolved).keys()],
        maxSteps: agentMaxSteps(resolved),
        tools: (resolved.tools ?? []).map((t) => t.name),
      });
    }
    return c.json({ agents });
  });
  return app;
}
