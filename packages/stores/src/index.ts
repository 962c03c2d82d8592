// Shared-mode stores (PostgreSQL). The embedded default of each store lives in the core or `reins/node`.
export { pgBlobStore, type PgQueryable, type PgBlobStoreOptions } from './pg-blob-store.js';
export { sqlMemoryStore, type SqlMemoryStoreOptions } from './sql-memory-store.js';
export { ensurePgTrgm } from './pg-trgm.js';
