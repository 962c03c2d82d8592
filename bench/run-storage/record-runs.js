// @ts-check
/**
 * Records real runs of the kitchen's two agents, in process: the seeded demo kitchen on an
 * in-memory PGlite, the kitchen's demo model, the real nutrition table (the nutrition MCP
 * server's service, called directly), and each run driven to its end as the server would
 * (`runAgent` for `kitchen`, `runPlanAgent` for `kitchen-plan`). What a store would be given.
 */
import { ToolError, runAgent, runPlanAgent } from 'reins';
import {
  createKitchenServices,
  kitchenAgent,
  kitchenDemoModel,
  migrate,
  openPgliteDb,
  seedDemo,
  toReinsPrincipal,
} from '@reins/kitchen';
import { createNutritionService } from '@reins/nutrition-mcp';
import { ASKERS, QUESTIONS } from './corpus.js';

/** @typedef {import('reins').RunEvent} RunEvent */
/** @typedef {{ agent: 'kitchen' | 'kitchen-plan', query: string, user: string, events: RunEvent[] }} RecordedRun */

/** 2026-05-01 12:00 in Shanghai, as the kitchen's tests: expiry dates and weeks are stable. */
const NOW = new Date('2026-05-01T04:00:00Z');

/**
 * The kitchen's `NutritionLookup` over the nutrition service in this process (what the MCP
 * bridge returns, without the child process): `null` for a food it does not know.
 * @returns {import('@reins/kitchen').NutritionLookup}
 */
function localNutrition() {
  const service = createNutritionService();
  return async (food) => {
    const found = await service.getFood({ name: food });
    if (!found.ok) {
      if (found.error.code === 'NOT_FOUND') return null;
      throw new ToolError('SERVICE_UNAVAILABLE', found.error.message);
    }
    const { code, name, matchedAlias, source, note, per100g: p } = found.value;
    return {
      code,
      name,
      matchedAlias,
      source,
      ...(note === undefined ? {} : { note }),
      per100g: {
        energyKcal: p.energyKcal ?? null,
        proteinG: p.proteinG ?? null,
        fatG: p.fatG ?? null,
        carbohydrateG: p.carbohydrateG ?? null,
        fibreG: p.fibreG ?? null,
        sodiumMg: p.sodiumMg ?? null,
      },
    };
  };
}

/**
 * Every question of the corpus, asked by every demo asker, of both agents (in that order):
 * `QUESTIONS.length × ASKERS.length × 2` runs, or the first `limit` of them.
 * @param {{ limit?: number }} [options]
 * @returns {Promise<RecordedRun[]>}
 */
export async function recordKitchenRuns(options = {}) {
  const db = await openPgliteDb();
  try {
    await migrate(db);
    const deps = { db, clock: () => NOW };
    await seedDemo(deps);
    const services = createKitchenServices(deps);
    const agent = kitchenAgent(services, {
      model: kitchenDemoModel({ now: () => NOW }),
      nutrition: localNutrition(),
    });
    /** @type {RecordedRun[]} */
    const runs = [];
    const limit = options.limit ?? Infinity;
    for (const user of ASKERS) {
      const { session } = await services.auth.login({ username: user, password: `demo-${user}` });
      const principal = toReinsPrincipal(session.principal);
      for (const query of QUESTIONS) {
        for (const kind of /** @type {const} */ (['kitchen', 'kitchen-plan'])) {
          if (runs.length >= limit) return runs;
          const request = {
            query,
            model: agent.model,
            tools: agent.tools,
            limits: agent.limits,
            instructions: agent.instructions,
            answer: agent.answer,
            principal,
          };
          const run = kind === 'kitchen' ? runAgent(request) : runPlanAgent(request);
          await run.result;
          runs.push({ agent: kind, query, user, events: [...run.events] });
        }
      }
    }
    return runs;
  } finally {
    await db.close();
  }
}
