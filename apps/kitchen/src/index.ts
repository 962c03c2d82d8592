// The public API of `@reins/kitchen`. Every export is a promise.
export { createKitchenApp, type KitchenAppDeps } from './http/app.js';
export { webAssets, isApiPath, WEB_CSP, type WebAssetsOptions } from './http/web-assets.js';
export { createKitchenServices, type KitchenServices } from './services/kitchen-services.js';
export type { ServiceDeps } from './services/env.js';
export {
  fromReinsPrincipal,
  toReinsPrincipal,
  requireMember,
  requireOwner,
  type KitchenPrincipal,
  type Access,
} from './services/principal.js';
export { kitchenReads, type KitchenReads } from './services/assistant-reads.js';
export type {
  AuthService,
  Session,
  LoginResult,
  LoginOptions,
  LoginOrigin,
} from './services/auth-service.js';
export type { HashGateOptions } from './auth/hash-gate.js';
export type { FridgeService, UseUpResult } from './services/fridge-service.js';
export type { RecipeService } from './services/recipe-service.js';
export type { MealPlanService } from './services/meal-plan-service.js';
export type { PreferenceService } from './services/preference-service.js';
export type { HouseholdService } from './services/household-service.js';
export type { InvitationService } from './services/invitation-service.js';
export type { AdminService, HouseholdOverview } from './services/admin-service.js';
export { KitchenError, type KitchenErrorCode, type KitchenErrorBody } from './domain/errors.js';
export type * from './domain/types.js';
export type { Db, Queryable } from './db/db.js';
export { openPgliteDb, type PgliteDbOptions } from './db/pglite-db.js';
export { openPgDb, type PgDbOptions } from './db/pg-db.js';
export { openStorage, type StorageOptions } from './db/open-db.js';
export { migrate, loadMigrations, type Migration } from './db/migrate.js';
export { seedDemo } from './seed/seed.js';
export { DEMO_USERS, DEMO_HOUSEHOLDS, type DemoUser } from './seed/demo-data.js';
export { readConfig, type KitchenConfig } from './config.js';
export { startKitchen, type RunningKitchen } from './cli/serve.js';
export {
  kitchenAgent,
  kitchenTools,
  nutritionTool,
  mcpNutritionLookup,
  KITCHEN_INSTRUCTIONS,
  type NutritionToolSource,
  type KitchenAgentOptions,
  type KitchenAgentDefinition,
  type NutritionLookup,
  type NutritionEntry,
  type NutritionPer100g,
  kitchenAnswer,
  kitchenCard,
  recipeCard,
  nutritionCard,
  mealPlanCard,
  PROVENANCES,
  type Provenance,
  type KitchenAnswer,
  type KitchenCard,
  type RecipeCard,
  type NutritionCard,
  type MealPlanCard,
  type MealPlanEntryCard,
  type NutrientValues,
  kitchenAnswerFormat,
  finalizeKitchenAnswer,
  kitchenDemoModel,
  KITCHEN_DEMO_NOTICE,
  gramsOf,
} from './assistant/index.js';
export {
  createKitchenServer,
  type KitchenServer,
  type KitchenServerOptions,
} from './server/kitchen-server.js';
export { kitchenAuthenticate, sessionToken } from './server/authenticate.js';
export { connectNutrition, type NutritionConnection } from './server/nutrition-bridge.js';
export { kitchenMcpServer, sessionPrincipal } from './mcp/kitchen-mcp-server.js';
export { startApp, kitchenModel, type RunningApp } from './cli/start.js';
