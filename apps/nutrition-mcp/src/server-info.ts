/** How the server names itself to MCP clients and in `/health`. */
export const SERVER_NAME = 'reins-nutrition';
export const SERVER_VERSION = '0.1.0';
