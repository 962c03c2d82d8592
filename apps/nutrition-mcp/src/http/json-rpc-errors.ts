/** JSON-RPC error bodies for what the transport refuses before MCP sees it. */
export function jsonRpcError(
  status: number,
  code: number,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
/** Server-defined range: refused by authentication. */
export const UNAUTHORIZED = -32001;
