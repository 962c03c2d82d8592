// Test helpers, public so apps built on Reins can drive their agents with exact model output.
export { ScriptModel, scriptModel, parseScript, type ScriptReply } from './models/script-model.js';
export { buildRunRecord } from './record.js';
