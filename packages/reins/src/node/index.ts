// Node-only helpers (file system). Kept out of the root entry so the core stays web-standard.
export { loadScriptModel } from './load-script.js';
export { fileBlobStore } from './file-blob-store.js';
export { fileConversationStore } from './file-conversation-store.js';
