import { serveStdio, type StdioServerHandle } from '@modelcontextprotocol/server/stdio';
import type { Principal } from 'reins';
import type { McpToolServer } from './tool-server.js';

export interface ServeToolsStdioOptions {
  /**
   * Who calls over stdio: the process that started this one (it holds the pipe). Required —
   * a stdio server has no token to check, so the app says whom it trusts.
   */
  readonly principal: Principal;
}

/**
 * Serves the tool server on this process's stdin/stdout (both MCP revisions; the opening
 * exchange picks one per connection). Write logs to stderr: stdout is the protocol.
 */
export function serveToolsStdio(server: McpToolServer, options: ServeToolsStdioOptions): StdioServerHandle {
  return serveStdio(server.factory(options.principal));
}
