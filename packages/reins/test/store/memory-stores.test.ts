import { memoryConversationStore, memoryRunStore } from '../../src/index.js';
import { conversationStoreContract } from '../contract/conversation-store-contract.js';
import { runStoreContract } from '../contract/run-store-contract.js';

runStoreContract('memoryRunStore', async () => ({ store: memoryRunStore(), close: async () => undefined }));
conversationStoreContract('memoryConversationStore', async () => ({
  store: memoryConversationStore(),
  close: async () => undefined,
}));
