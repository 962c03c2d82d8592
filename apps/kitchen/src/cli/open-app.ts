import type { KitchenConfig } from '../config.js';
import type { Db } from '../db/db.js';
import { openStorage } from '../db/open-db.js';
import { seedDemo } from '../seed/seed.js';
import { createKitchenServices, type KitchenServices } from '../services/kitchen-services.js';

export interface OpenedKitchen {
  readonly db: Db;
  readonly services: KitchenServices;
  /** True when this start seeded the demo data. */
  readonly seeded: boolean;
}

/** Storage (migrated), the demo seed when configured, and the service layer over it. */
export async function openKitchen(config: KitchenConfig): Promise<OpenedKitchen> {
  const db = await openStorage(
    config.databaseUrl === undefined
      ? {
          dataDir: config.dataDir,
          pgliteThread: config.pgliteThread,
          transactionIdleTimeoutMs: config.pgliteTxIdleTimeoutMs,
        }
      : {
          databaseUrl: config.databaseUrl,
          ...(config.schema === undefined ? {} : { schema: config.schema }),
          connectTimeoutMs: config.dbConnectTimeoutMs,
          poolSize: config.dbPoolSize,
          poolWaitMs: config.dbPoolWaitMs,
          queryTimeoutMs: config.dbQueryTimeoutMs,
        },
  );
  try {
    const seeded = config.seed === 'demo' ? await seedDemo({ db }) : false;
    const { login } = config;
    const services = createKitchenServices({
      db,
      login: {
        maxFailures: login.maxFailures,
        windowMs: login.windowMs,
        lockMs: login.lockMs,
        hashing: { concurrency: login.hashConcurrency, queue: login.hashQueue },
      },
    });
    return { db, services, seeded };
  } catch (error) {
    await db.close();
    throw error;
  }
}
