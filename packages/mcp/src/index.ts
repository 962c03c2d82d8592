// The public API of `@reins/mcp`: the MCP client and server bridges. Every export is a promise.
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
export type {
  McpRoot,
  McpSamplingOptions,
  McpElicitation,
  McpElicitationAnswer,
  McpElicitationHandler,
} from './client-requests.js';
export type { McpHttpAuth } from './http-auth.js';
export { base64String } from './json-schema.js';
export { fingerprint, type ToolDefinition } from './fingerprint.js';

// The MCP server bridge: chosen Reins tools served over stdio and Streamable HTTP.
export { createMcpToolServer, type McpToolServer, type McpToolServerOptions } from './server/tool-server.js';
export type { PresentResult } from './server/observation-result.js';
export { serveToolsStdio, type ServeToolsStdioOptions } from './server/serve-stdio.js';
export { createMcpHttpApp, type McpHttpApp, type McpHttpOptions } from './server/http/http-app.js';
export { startMcpHttp, type RunningMcpHttp, type StartMcpHttpOptions } from './server/http/start-http.js';
export type { Authenticate } from './server/http/authenticate.js';
export type { HealthProbe, HealthReport } from './server/http/health.js';
export { mcpHealthCheck, type McpHealth } from './health-check.js';
