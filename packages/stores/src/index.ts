// Shared-mode stores (PostgreSQL). The embedded default of each store lives in the core or `reins/node`.
export { pgBlobStore, type PgQueryable, type PgBlobStoreOptions } from './pg-blob-store.js';
export {
  sqlMemoryStore,
  type SqlGuard,
  type SqlMemoryStore,
  type SqlMemoryStoreOptions,
} from './sql-memory-store.js';
export { ensurePgTrgm } from './pg-trgm.js';
export {
  RunCodec,
  StoredEventError,
  CODEC_VERSION,
  CODEC_VERSION_WITH_TEXTS,
  PromptTexts,
  MIN_INTERNED_CHARS,
  encodeEvent,
  decodeEvent,
} from './codec/index.js';
export { sqlRunStore, type SqlRunStore, type SqlRunStoreOptions } from './sql-run-store.js';
export { sqlConversationStore } from './sql-conversation-store.js';
export type { SqlStoreOptions } from './sql-names.js';
export { pgUnavailableReason } from './pg-unavailable.js';
export { createRacing } from './sql-schema.js';
export { handOutPaced, handEachPaced, DEFAULT_PACE, type Pace } from './paced-hand-out.js';
