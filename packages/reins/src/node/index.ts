// Node-only helpers (file system). Kept out of the root entry so the core stays web-standard.
export { loadScriptModel } from './load-script.js';
export { fileBlobStore } from './file-blob-store.js';
export { fileConversationStore } from './file-conversation-store.js';
// Tool definition drift (node:crypto fingerprints, the approved file): `reins tools check`.
export * from '../drift/index.js';
export { checkOrApprove as toolDriftCommand, type ToolsIo } from '../cli/tools-command.js';
