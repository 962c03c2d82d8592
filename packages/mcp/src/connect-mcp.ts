import { McpBridge } from './bridge.js';
import { resolveOptions, type ConnectMcpOptions } from './options.js';

/**
 * Connects to one MCP server and imports its tools (see `McpBridge`). Resolves once the
 * start-up probe is done — also when the server is down (then `status().status` is `down`,
 * `lastError` says why, `tools()` is empty, and reconnecting continues on the next call or
 * probe). Throws `TypeError` for invalid options only.
 */
export async function connectMcp(options: ConnectMcpOptions): Promise<McpBridge> {
  const bridge = new McpBridge(resolveOptions(options));
  await bridge.probe();
  return bridge;
}
