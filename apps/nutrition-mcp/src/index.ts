export type { Food, Nutrients } from './data/food.js';
export { kjToKcal, KJ_PER_KCAL } from './data/food.js';
export { ifctFoods, parseIfctTable } from './data/ifct-table.js';
export { ALIASES, type Alias, type AliasMatch } from './matching/aliases.js';
export { findCandidates, type CandidateLookup } from './matching/find-candidates.js';
export { rankCandidates, type Candidate } from './matching/rank-candidates.js';
export { cacheKey, CACHE_VERSION, type CacheStore, type LookupOp } from './cache/cache-store.js';
export { memoryCacheStore, type MemoryCacheStoreOptions } from './cache/memory-cache-store.js';
export { redisCacheStore, type RedisCacheStoreOptions } from './cache/redis-cache-store.js';
export {
  createNutritionService,
  type NutritionService,
  type NutritionServiceOptions,
} from './service/nutrition-service.js';
export type {
  FoodDetail,
  LookupError,
  LookupErrorCode,
  Outcome,
  SearchCandidate,
  SearchResult,
} from './service/results.js';
export { healthOf, type Health } from './service/health.js';
export {
  createNutritionServer,
  nutritionServerFactory,
  type CreateNutritionServerOptions,
} from './mcp/nutrition-server.js';
export { createHttpApp, type HttpApp, type HttpAppOptions } from './http/http-app.js';
export { startHttp, type RunningHttpServer, type StartHttpOptions } from './http/start-http.js';
