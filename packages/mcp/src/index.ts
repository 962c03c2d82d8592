// The public API of `@reins/mcp`: the MCP client bridge. Every export is a promise.
export { connectMcp } from './connect-mcp.js';
export { McpBridge, type McpStatus, type ServerState } from './bridge.js';
export type { PendingApproval, SkippedTool } from './catalog.js';
export type {
  ConnectMcpOptions,
  McpTransportOptions,
  McpDeps,
  ProtocolChoice,
  ReconnectOptions,
} from './options.js';
export { base64String } from './json-schema.js';
export { fingerprint, type ToolDefinition } from './fingerprint.js';
