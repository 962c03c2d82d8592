import type { NutritionService } from './nutrition-service.js';
import { SERVER_NAME, SERVER_VERSION } from '../server-info.js';

export interface Health {
  /** `degraded`: lookups work, but the configured shared cache (Redis) is down. */
  readonly status: 'ok' | 'degraded';
  readonly name: string;
  readonly version: string;
  readonly foods: number;
  readonly cache: { readonly backend: 'memory' | 'redis'; readonly state: 'ready' | 'down' };
}

export function healthOf(service: NutritionService): Health {
  const state = service.cache.state();
  return {
    status: state === 'ready' ? 'ok' : 'degraded',
    name: SERVER_NAME,
    version: SERVER_VERSION,
    foods: service.foodCount(),
    cache: { backend: service.cache.backend, state },
  };
}
