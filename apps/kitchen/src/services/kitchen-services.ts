import { createAdminService, type AdminService } from './admin-service.js';
import { createAuthService, type AuthService } from './auth-service.js';
import { resolveEnv, type ServiceDeps, type ServiceEnv } from './env.js';
import { createFridgeService, type FridgeService } from './fridge-service.js';
import { createHouseholdService, type HouseholdService } from './household-service.js';
import { createIdempotencyService, type IdempotencyService } from './idempotency-service.js';
import { createInvitationService, type InvitationService } from './invitation-service.js';
import { createMealPlanService, type MealPlanService } from './meal-plan-service.js';
import { createMemoryService, type MemoryService } from './memory-service.js';
import { createPreferenceService, type PreferenceService } from './preference-service.js';
import { createRecipeService, type RecipeService } from './recipe-service.js';

/**
 * The one way to the data. REST handlers, the assistant's tools, the MCP server and the admin
 * CLI all call these; every household-scoped method takes a trusted `KitchenPrincipal` and
 * checks membership itself, so no caller can skip it.
 */
export interface KitchenServices {
  readonly env: ServiceEnv;
  readonly auth: AuthService;
  readonly households: HouseholdService;
  /** Membership by invitation: owners invite a username, its holder accepts or declines. */
  readonly invitations: InvitationService;
  readonly fridge: FridgeService;
  readonly recipes: RecipeService;
  readonly mealPlans: MealPlanService;
  readonly preferences: PreferenceService;
  /** Free-text household memories (remembered on a member's word, recalled by the assistant). */
  readonly memories: MemoryService;
  /** `Idempotency-Key`: the first answer of a keyed POST, replayed to its repeats for 24 h. */
  readonly idempotency: IdempotencyService;
  /** Operator-only (CLI): never mounted on the REST API. */
  readonly admin: AdminService;
}

export function createKitchenServices(deps: ServiceDeps): KitchenServices {
  const env = resolveEnv(deps);
  return {
    env,
    auth: createAuthService(env, deps.login),
    households: createHouseholdService(env),
    invitations: createInvitationService(env),
    fridge: createFridgeService(env),
    recipes: createRecipeService(env),
    mealPlans: createMealPlanService(env),
    preferences: createPreferenceService(env),
    memories: createMemoryService(env, deps.embedder),
    idempotency: createIdempotencyService(env),
    admin: createAdminService(env),
  };
}
